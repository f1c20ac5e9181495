// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

/// GNOME Keyring restarted on the same bus (it crashed, or was upgraded) under a running
/// agent: the transfer session libsecret opened with the old daemon is gone, and every write
/// in it failed ("The session wrapping the secret does not exist"), so the agent served
/// rotated tokens it could not store, and the next process spent a dead refresh token.
@Suite("vault agent across a keyring restart", .offThePool) struct AgentKeyringRestartTests {
    @Test("after the keyring daemon restarts, the agent's rotations are stored again")
    func rotationsStoredAfterRestart() async throws {
        let root = PackageRoot.path
        let configuration = AuthServerConfiguration(
            accessTokenLifetime: 3, refreshTokenLifetime: 3600, users: [CredentialPair(name: "alice", secret: AuthFixture.password)])
        try await withReferenceServer(configuration) { running in
            try await withTemporaryDirectory("vault-keyring-restart") { directory in
                var environment = VaultProcess.baseEnvironment(home: directory)
                // A private bus and keyring of this test's own: the daemon is restarted.
                environment["DBUS_SESSION_BUS_ADDRESS"] = nil
                environment["VAULT_KEYRING_HOME"] = directory + "/keyring"
                environment["VAULT"] = VaultProcess.vaultPath
                environment["URL"] = running.url
                environment["DIR"] = directory
                let result = try await Task.detached {
                    try await ChildProcess.runAsync(
                        "\(root)/Scripts/with-keyring", ["\(root)/Tests/Helpers/keyring-restart-agent"], environment: environment,
                        stdin: Data(AuthFixture.password.utf8), timeout: 120)
                }.value
                let trace = "\(result.out)\n\(result.err)\n\(running.server.stats)"
                #expect(result.status == 0, "\(trace)")
                #expect(result.out.contains("keyring restarted"), "\(trace)")
                #expect(result.out.contains("token read without the agent"), "\(trace)")
                #expect(!result.out.contains("could not store"), "\(trace)")
                #expect(running.server.stats.refreshes >= 2, "the agent refreshed after the restart\n\(trace)")
                #expect(running.server.stats.logins == 1 && running.server.stats.failedRefreshes == 0, "\(trace)")
                #expect(!result.out.contains(AuthFixture.password))
            }
        }
    }
}
