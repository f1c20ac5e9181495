// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultTestSupport
import VaultTesting

/// vault's own `SecretServiceStore` (`--backend secret-service`) keeping the whole
/// `StoreContract` against vault's provider, `vault agent --secret-service`. libsecret keeps
/// one connection to the session bus per process, so this suite runs in a process of its
/// own inside `Scripts/with-vault-secret-service` (Scripts/test does), which sets
/// VAULT_WITH_VAULT_SECRET_SERVICE=1; elsewhere it is skipped.
@Suite(
    .enabled(
        if: ProcessInfo.processInfo.environment["VAULT_WITH_VAULT_SECRET_SERVICE"] == "1",
        "runs only inside Scripts/with-vault-secret-service (Scripts/test runs it there)"),
    .offThePool
)
struct SecretServiceProviderContractTests {
    @Test(arguments: StoreContract.Rule.allCases)
    func keepsTheContract(rule: StoreContract.Rule) throws {
        let store = try SecretServiceStore(timeout: KeyringTestEnvironment.callBound, itemLockDirectory: KeyringTestEnvironment.lockDirectory)
        #expect(store.backendName == "secret-service")
        try rule.verify(store, namespace: KeyringTestEnvironment.uniqueNamespace("provider-contract"))
    }

    @Test("the service answering is vault's provider, not a keyring activated behind it")
    func theServiceIsVaults() throws {
        let pid = try #require(ProcessInfo.processInfo.environment["VAULT_SECRET_SERVICE_PID"].flatMap { Int32($0) })
        let owner = try ChildProcess.run(
            "/usr/bin/gdbus",
            [
                "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus", "--method",
                "org.freedesktop.DBus.GetConnectionUnixProcessID", "org.freedesktop.secrets",
            ],
            environment: nil, timeout: 30)
        let served = [pid] + ChildProcess.descendants(of: pid)
        #expect(served.contains { owner.out == "(uint32 \($0),)\n" }, "owner: \(owner.out)\(owner.err), provider pids \(served)")
    }
}
