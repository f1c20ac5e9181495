// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultAuth
import VaultStore
import VaultTestSupport
import VaultTesting

/// The one-machine lock (`flock` on a file per account) keeps the AccountLocking contract;
/// two instances on one directory stand for two processes (a `flock` is per open file, so
/// two opens in one process exclude each other as two processes do).
@Suite(.offThePool) struct FileAccountLockingContractTests {
    @Test(arguments: AccountLockingContract.Rule.allCases)
    func keepsTheContract(rule: AccountLockingContract.Rule) async throws {
        try await withTemporaryDirectory("vault-locking-contract") { directory in
            let locks = directory + "/locks"
            try await rule.verify(FileAccountLocking(directory: locks), FileAccountLocking(directory: locks))
        }
    }
}
