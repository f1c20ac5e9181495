// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultAuth
import VaultCLI
import VaultStore
import VaultStoreCLI

/// Every library error maps to the exit code the README's table gives it, in one place.
@Suite(.offThePool) struct ExitStatusTests {
    @Test func storeErrors() {
        let key = CredentialKey(server: "s", account: "a")
        #expect(ExitStatus.of(VaultError.notFound(key)) == 1)
        #expect(ExitStatus.of(VaultError.invalidInput("x")) == 2)
        for error in [VaultError.locked("x"), .notApproved("x"), .wrongPassphrase, .corrupted("x"), .unsupportedFormat("x")] {
            #expect(ExitStatus.of(error) == 3, "\(error)")
        }
        #expect(ExitStatus.of(VaultError.backendUnavailable("x")) == 4)
        #expect(ExitStatus.of(VaultError.permission("x")) == 4)
        #expect(ExitStatus.of(VaultError.lockTimeout("x")) == 4, "a lock held past its bound: exit 4, as the file lock's always was")
    }

    @Test func authErrors() {
        #expect(ExitStatus.of(AuthError.authentication("x")) == 3)
        #expect(ExitStatus.of(AuthError.configuration("x", providerCode: "invalid_client")) == 3)
        #expect(ExitStatus.of(AuthError.excessiveRefresh("x")) == 3)
        #expect(ExitStatus.of(AuthError.server(status: 500, message: "x")) == 5)
        #expect(ExitStatus.of(AuthError.network("x")) == 5)
        #expect(ExitStatus.of(AuthError.invalidRequest("x")) == 2)
        #expect(ExitStatus.of(AuthError.lockTimeout("x")) == 4, "a refresh lock held too long is not a network error")
        #expect(ExitStatus.of(AuthError.store(.wrongPassphrase)) == 3)
        #expect(AuthError(VaultError.lockTimeout("x")) == .lockTimeout("x"), "a store's lock wait keeps its own case")
        #expect(AuthError(VaultError.conflict("x")) == .store(.conflict("x")))
        #expect(AuthError.authentication("x", providerCode: "invalid_grant").providerCode == "invalid_grant")
        #expect(AuthError.network("x").providerCode == nil)
    }
}
