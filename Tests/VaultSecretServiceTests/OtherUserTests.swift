// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultSecretService
import VaultStore
import VaultTestSupport

@Suite("Secret Service provider: other users", .serialized, .offThePool)
struct OtherUserTests {
    /// A bus that lets every uid connect (a session bus never should; the provider must
    /// refuse such callers itself), with its socket reachable by `nobody`.
    private static func openBus(in directory: String) throws -> ChildProcess {
        let configuration = PrivateSessionBus.configuration(socket: "\(directory)/bus", everyUser: true)
        try configuration.write(toFile: "\(directory)/bus.conf", atomically: true, encoding: .utf8)
        return try ChildProcess.start("/usr/bin/dbus-daemon", ["--config-file=\(directory)/bus.conf", "--nofork"])
    }

    @Test("a caller of another uid gets AccessDenied; the owner is served", .enabled(if: getuid() == 0, "needs root to run a client as nobody"))
    func otherUID() async throws {
        let directory = try TemporaryDirectory.make(prefix: "vault-bus-any")
        defer { TemporaryDirectory.remove(directory) }
        chmod(directory, 0o755)
        let daemon = try Self.openBus(in: directory)
        defer { daemon.kill() }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: "\(directory)/bus"), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let address = "unix:path=\(directory)/bus"
        let backing = InMemoryServiceBacking(
            VaultContents(credentials: [CredentialKey(server: "h", account: "a"): Credential(server: "h", account: "a", secret: Secret("uid-pw"))]))
        let provider = SecretServiceProvider(backing: backing, logger: LogCapture().logger, busAddress: address)
        try await provider.start()
        do {
            try await Self.check(address: address)
        } catch {
            await provider.stop()
            throw error
        }
        await provider.stop()
    }

    private static func check(address: String) async throws {

        let call = [
            "call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets", "--method",
            "org.freedesktop.Secret.Service.SearchItems", "{'user': 'a'}",
        ]
        let environment = ["DBUS_SESSION_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin", "HOME": "/"]
        let owner = try await ChildProcess.runAsync("/usr/bin/gdbus", call, environment: environment, timeout: 30)
        #expect(owner.status == 0 && owner.out.contains("/org/freedesktop/secrets/collection/login/v"), "\(owner.out) \(owner.err)")
        let stranger = try await ChildProcess.runAsync(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/gdbus"] + call, environment: environment,
            timeout: 30)
        #expect(stranger.status != 0 && stranger.err.contains("org.freedesktop.DBus.Error.AccessDenied"), "\(stranger.out) \(stranger.err)")
        #expect(!stranger.out.contains("collection/login/v"))
    }
}
