// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultSecretService
import VaultStore
import VaultTestSupport

@Suite("Secret Service provider: raw D-Bus clients", .serialized, .offThePool)
struct RawClientTests {
    @Test("sessions: past the per-client bound the oldest closes; Close, another client's session refused, unknown algorithm")
    func sessions() async throws {
        try await withProvider { harness in
            let result = try await harness.python(jeepneyClient, ["sessions"])
            #expect(result.status == 0 && result.out.hasSuffix("ok\n"), "\(result.out) \(result.err)")
        }
    }

    @Test("malformed calls get errors and the provider keeps serving")
    func malformed() async throws {
        try await withProvider { harness in
            let result = try await harness.python(jeepneyClient, ["malformed"])
            #expect(result.status == 0 && result.out.hasSuffix("ok\n"), "\(result.out) \(result.err)")
            #expect(harness.backing.current.items.values.map(\.secret) == [Secret("fine")])
        }
    }

    @Test("Unlock with no key gives a prompt that completes dismissed, and the log names vault unlock")
    func prompt() async throws {
        try await withProvider(InMemoryServiceBacking(locked: true, keyCached: false)) { harness in
            let result = try await harness.python(jeepneyClient, ["prompt"])
            #expect(result.status == 0 && result.out.hasSuffix("ok\n"), "\(result.out) \(result.err)")
            #expect(harness.log.text.contains("vault unlock"))
        }
    }

    @Test("Lock locks the vault, clients are told (PropertiesChanged), and locked calls fail with IsLocked")
    func lockSignals() async throws {
        let backing = InMemoryServiceBacking(VaultContents(), locked: false, keyCached: false)
        try await withProvider(backing) { harness in
            let result = try await harness.python(jeepneyClient, ["lock-signals"])
            #expect(result.status == 0 && result.out.hasSuffix("ok\n"), "\(result.out) \(result.err)")
            #expect(backing.isLocked)
        }
    }

    @Test("an item's secret in and out: CreateItem, GetSecret, SetSecret (binary), GetSecrets, Delete, ItemCreated")
    func itemSecrets() async throws {
        try await withProvider { harness in
            harness.backing.setJitter(40)
            let result = try await harness.python(jeepneyClient, ["item-secrets"])
            #expect(result.status == 0 && result.out.hasSuffix("ok\n"), "\(result.out) \(result.err)")
            #expect(harness.backing.current.items.isEmpty)
        }
    }

    @Test("20 secret-tool lookups at once all get the secret")
    func parallelLookups() async throws {
        let backing = InMemoryServiceBacking(
            VaultContents(credentials: [CredentialKey(server: "h", account: "a"): Credential(server: "h", account: "a", secret: Secret("many-pw"))]))
        try await withProvider(backing) { harness in
            let outputs = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 { group.addTask { try await harness.secretTool(["lookup", "user", "a", "server", "h"]).out } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outputs.count == 20 && outputs.allSatisfy { $0 == "many-pw" }, "\(outputs)")
        }
    }

    @Test("a client that leaves mid-call does not stop the provider")
    func leaveMidCall() async throws {
        let backing = InMemoryServiceBacking()
        try await withProvider(backing) { harness in
            backing.setDelay(.milliseconds(1500))
            let result = try await harness.python(jeepneyClient, ["leave-mid-call"])
            #expect(result.status == 0, "\(result.out) \(result.err)")
            try await Task.sleep(for: .seconds(2))
            backing.setDelay(.zero)
            // Its session closed when it left the bus.
            let sessions = try await harness.run(
                "/usr/bin/gdbus",
                ["introspect", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets/session"])
            #expect(sessions.status == 0 && sessions.out.range(of: #"node \d"#, options: .regularExpression) == nil, "\(sessions.out)")
            #expect(try await harness.secretTool(["store", "--label=after", "k", "v"], stdin: "after-pw").status == 0)
            #expect(try await harness.secretTool(["lookup", "k", "v"]).out == "after-pw")
        }
    }

    @Test("a slow backing call holds up no other client")
    func concurrent() async throws {
        let backing = InMemoryServiceBacking()
        try await withProvider(backing) { harness in
            backing.slowNextRead(.seconds(6))
            let result = try await harness.python(jeepneyClient, ["concurrent"])
            #expect(result.status == 0 && result.out.hasSuffix("ok\n"), "\(result.out) \(result.err)")
        }
    }

    @Test("a second provider on the same bus says who holds the name")
    func nameTaken() async throws {
        try await withProvider { harness in
            let second = SecretServiceProvider(backing: InMemoryServiceBacking(), logger: harness.log.logger, busAddress: harness.bus.address)
            await #expect(throws: SecretServiceProvider.StartError.self) { try await second.start() }
            do throws(SecretServiceProvider.StartError) {
                try await second.start()
            } catch {
                guard case .nameTaken(let owner) = error else { Issue.record("\(error)"); return }
                #expect(owner.hasPrefix("pid \(getpid()) ("), "\(owner)")
            }
        }
    }

    @Test("no session bus: a clear error")
    func noBus() async throws {
        let provider = SecretServiceProvider(backing: InMemoryServiceBacking(), logger: LogCapture().logger, busAddress: "unix:path=/nonexistent/bus")
        await #expect(throws: SecretServiceProvider.StartError.self) { try await provider.start() }
    }
}
