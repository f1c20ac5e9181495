// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// `vault agent --secret-service` and vault itself: vault's items seen by libsecret clients
/// and the other way round, items kept in (and only encrypted in) the vault file across
/// restarts, one provider per bus, the collections' lock following `vault lock`/`unlock`.
@Suite("vault's Secret Service provider and vault", .offThePool) struct SecretServiceProviderVaultTests {
    @Test("vault save is found by secret-tool lookup user A server H, and secret-tool store by vault load")
    func vaultAndSecretToolBothWays() async throws {
        try await ProviderFixture.withProvider { fixture, _ in
            let save = try await fixture.vault(["save", "--server", "h1.example.org", "--account", "alice"], stdin: "vault-saved-1")
            #expect(save.status == 0, "\(save.err)")
            let lookup = try await fixture.secretTool(["lookup", "user", "alice", "server", "h1.example.org"])
            #expect(lookup.status == 0 && lookup.out == "vault-saved-1", "\(lookup.out)\(lookup.err)")

            let store = try await fixture.secretTool(["store", "--label=bob", "user", "bob", "server", "h2.example.org"], stdin: "tool-stored-2")
            #expect(store.status == 0, "\(store.err)")
            // secret-tool's item keeps its generic schema, so it is not one of vault's file items:
            // vault reads it through the Secret Service, as from any keyring.
            let overTheBus = ["VAULT_BACKEND": "secret-service"]
            let load = try await fixture.vault(["load", "--server", "h2.example.org", "--account", "bob"], extra: overTheBus)
            #expect(load.status == 0 && load.out == "tool-stored-2", "\(load.out)\(load.err)")
            let list = try await fixture.vault(["list"], extra: overTheBus)
            #expect(list.out.contains("h1.example.org") && list.out.contains("h2.example.org"), "\(list.out)\(list.err)")
            // Issue 37, finding 10: the file backend reads it by the same rule, and a save
            // updates that item in place (secret-tool finds the new secret, under its label),
            // while a neighbour of another protocol is left alone.
            let imap = try await fixture.secretTool(
                ["store", "--label=imap", "user", "bob", "server", "h2.example.org", "protocol", "imap"], stdin: "imap-secret")
            #expect(imap.status == 0, "\(imap.err)")
            let fileLoad = try await fixture.vault(["load", "--server", "h2.example.org", "--account", "bob"])
            #expect(fileLoad.status == 0 && fileLoad.out == "tool-stored-2", "\(fileLoad.out)\(fileLoad.err)")
            let fileSave = try await fixture.vault(["save", "--server", "h2.example.org", "--account", "bob"], stdin: "vault-saved-2")
            #expect(fileSave.status == 0, "\(fileSave.err)")
            let updated = try await fixture.secretTool(["search", "--all", "user", "bob", "server", "h2.example.org"])
            #expect(updated.out.contains("label = bob") && updated.out.contains("secret = vault-saved-2"), "\(updated.out)\(updated.err)")
            #expect(updated.out.contains("secret = imap-secret") && !updated.out.contains("tool-stored-2"), "\(updated.out)")
            let fileRemove = try await fixture.vault(["remove", "--server", "h2.example.org", "--account", "bob"])
            #expect(fileRemove.status == 0, "\(fileRemove.err)")
            let left = try await fixture.secretTool(["search", "--all", "user", "bob", "server", "h2.example.org"])
            #expect(left.out.contains("secret = imap-secret") && !left.out.contains("vault-saved-2"), "\(left.out)\(left.err)")

            let remove = try await fixture.vault(["remove", "--server", "h1.example.org", "--account", "alice"])
            #expect(remove.status == 0, "\(remove.err)")
            let gone = try await fixture.secretTool(["lookup", "user", "alice", "server", "h1.example.org"])
            #expect(gone.status != 0 && gone.out.isEmpty, "\(gone.out)")
        }
    }

    @Test("a client's stale item path never reaches the credential a later vault save stores (issue 27, finding 1)")
    func stalePathAndVaultSave() async throws {
        try await ProviderFixture.withProvider { fixture, _ in
            let server = "s27.example.org"
            #expect(try await fixture.vault(["save", "--server", server, "--account", "alice"], stdin: "old-alice").status == 0)
            // Client A remembers alice's path; client B moves alice to zed.
            let moved = try await fixture.python(
                """
                import secretstorage as s
                c = s.dbus_init()
                [item] = s.search_items(c, {'user': 'alice', 'server': '\(server)'})
                attributes = item.get_attributes()
                attributes['user'] = 'zed'
                item.set_attributes(attributes)
                print(item.item_path)
                """)
            let path = moved.out.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(moved.status == 0 && path.hasPrefix("/org/freedesktop/secrets/collection/login/"), "\(moved.out)\(moved.err)")
            #expect(try await fixture.vault(["save", "--server", server, "--account", "alice"], stdin: "new-alice").status == 0)
            // Client A writes to its path: zed's item, never the new alice.
            let stale = try await fixture.python(
                """
                import sys, secretstorage as s
                s.Item(s.dbus_init(), sys.argv[1]).set_secret(b'stale-write')
                """, [path])
            #expect(stale.status == 0, "\(stale.err)")
            #expect(try await fixture.vault(["load", "--server", server, "--account", "alice"]).out == "new-alice")
            #expect(try await fixture.vault(["load", "--server", server, "--account", "zed"]).out == "stale-write")
            // Deleted, the path names nothing, whatever vault saves afterwards.
            let deleted = try await fixture.python(
                """
                import sys, secretstorage as s
                c = s.dbus_init()
                s.Item(c, sys.argv[1]).delete()
                try:
                    s.Item(c, sys.argv[1]).set_secret(b'stale-write-2')
                    print('written')
                except Exception as error:
                    print('gone', type(error).__name__)
                """, [path])
            #expect(deleted.out.hasPrefix("gone"), "\(deleted.out)\(deleted.err)")
            #expect(try await fixture.vault(["load", "--server", server, "--account", "alice"]).out == "new-alice")
            #expect(try await fixture.vault(["load", "--server", server, "--account", "zed"]).status == 1)
        }
    }

    @Test("items survive a restart of the provider, and nothing of them is readable in the vault file")
    func restartAndFileBytes() async throws {
        try await ProviderFixture.with { fixture in
            let agent = try await fixture.startProvider()
            let secret = "restart-secret-7f3a", label = "restart-label-c5d1", attribute = "restart-attr-91be"
            let store = try await fixture.secretTool(["store", "--label=\(label)", "marker", attribute, "user", "ivy"], stdin: secret)
            #expect(store.status == 0, "\(store.err)")
            let binary = try await fixture.python(
                """
                import secretstorage as s
                c = s.dbus_init()
                s.get_default_collection(c).create_item('binary-label-3e8c', {'xdg:schema': 'org.example.Binary', 'kind': 'binary-attr-0d4f'},
                    bytes(range(256)), True, 'application/octet-stream')
                """)
            #expect(binary.status == 0, "\(binary.err)")
            try await fixture.stop(agent)

            let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture.file))
            for needle in [secret, label, attribute, "ivy", "binary-label-3e8c", "binary-attr-0d4f", "org.example.Binary", "marker"] {
                #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(needle) readable in the vault file")
            }
            #expect(bytes.range(of: Data((0..<64).map { UInt8($0) })) == nil, "the binary secret readable in the vault file")

            let again = try await fixture.startProvider()
            let lookup = try await fixture.secretTool(["lookup", "marker", attribute])
            #expect(lookup.out == secret, "\(lookup.err)")
            let read = try await fixture.python(
                """
                import secretstorage as s
                c = s.dbus_init()
                [item] = s.search_items(c, {'kind': 'binary-attr-0d4f'})
                print(item.get_label(), sorted(item.get_attributes().items()), item.get_secret() == bytes(range(256)))
                """)
            #expect(
                read.out == "binary-label-3e8c [('kind', 'binary-attr-0d4f'), ('xdg:schema', 'org.example.Binary')] True\n",
                "\(read.out)\(read.err)")
            try await fixture.stop(again)
        }
    }

    @Test("a second provider on the same bus exits 4 and names the first")
    func secondProviderExits4() async throws {
        try await ProviderFixture.withProvider { fixture, agent in
            let second = try await ChildProcess.runAsync(
                VaultProcess.vaultPath, ["agent", "--secret-service"],
                environment: fixture.environment.merging(["VAULT_AGENT_SOCKET": fixture.directory + "/run/second.sock"]) { $1 },
                timeout: 60)
            #expect(second.status == 4, "\(second.status): \(second.err)")
            let lines = second.err.split(separator: "\n")
            let pids = [agent.process.processIdentifier] + ChildProcess.descendants(of: agent.process.processIdentifier)
            #expect(
                lines.contains { line in line.contains("org.freedesktop.secrets") && pids.contains { line.contains("pid \($0)") } },
                "the owner (one of pids \(pids)) not named: \(second.err)")
            // The first still serves.
            let store = try await fixture.secretTool(["store", "--label=x", "still", "serving"], stdin: "x")
            #expect(store.status == 0, "\(store.err)")
        }
    }

    @Test("vault lock locks the collections (Locked, lookups fail); vault unlock unlocks them")
    func lockFollowsTheVaultKey() async throws {
        try await ProviderFixture.with { fixture in
            let cache = ["VAULT_KEY_CACHE_TTL": "60"]
            let save = try await fixture.vault(["save", "--server", "lock.example.org", "--account", "kim"], stdin: "lock-secret-k", extra: cache)
            #expect(save.status == 0, "\(save.err)")
            let agent = try await fixture.startProvider(extra: cache)
            defer { agent.kill() }
            #expect(try await fixture.defaultCollectionLocked() == "False")
            let before = try await fixture.secretTool(["lookup", "user", "kim", "server", "lock.example.org"])
            #expect(before.out == "lock-secret-k", "\(before.err)")

            let lock = try await fixture.vault(["lock"], extra: cache)
            #expect(lock.status == 0, "\(lock.out)\(lock.err)")
            #expect(try await fixture.defaultCollectionLocked() == "True", "\(agent.output)")
            let locked = try await fixture.secretTool(["lookup", "user", "kim", "server", "lock.example.org"])
            #expect(locked.status != 0 && locked.out.isEmpty, "a lookup while locked: \(locked.out)")
            #expect(agent.output.contains("vault unlock"), "the agent's log should name vault unlock: \(agent.output)")

            let unlock = try await fixture.vault(["unlock"], extra: cache)
            #expect(unlock.status == 0, "\(unlock.err)")
            // vault unlock hands the agent the key through the kernel key cache.
            var withoutPassphrase = fixture.environment.merging(cache) { $1 }
            withoutPassphrase.removeValue(forKey: "VAULT_PASSPHRASE_FILE")
            withoutPassphrase["VAULT_AGENT"] = "off"
            let cacheWorks = try await VaultProcess.vaultAsync(
                ["load", "--server", "lock.example.org", "--account", "kim"], environment: withoutPassphrase)
            guard cacheWorks.status == 0 else {
                print("the kernel key cache is unavailable here; vault unlock cannot reach the agent (\(cacheWorks.err))")
                try await fixture.stop(agent)
                return
            }
            let unlocked = await eventually(limit: .seconds(20), every: .milliseconds(100)) {
                (try? await fixture.defaultCollectionLocked()) == "False"
            }
            #expect(unlocked, "still locked after vault unlock: \(agent.output)")
            let after = try await fixture.secretTool(["lookup", "user", "kim", "server", "lock.example.org"])
            #expect(after.out == "lock-secret-k", "\(after.err)")
            _ = try await fixture.vault(["lock"], extra: cache)
            try await fixture.stop(agent)
            #expect(!agent.output.contains("lock-secret-k") && !agent.output.contains(ProviderFixture.passphrase))
        }
    }

    @Test("the bus going away (a dbus-run-session that ended) stops the provider cleanly, as on SIGTERM")
    func busGoneStopsTheAgent() async throws {
        let bus = try PrivateSessionBus.start()
        var stopped = false
        defer { if !stopped { bus.stop() } }
        try await ProviderFixture.with(bus: bus) { fixture in
            let agent = try await fixture.startProvider()
            defer { agent.kill() }
            bus.stop()
            stopped = true
            let result = try await agent.finishAsync(timeout: 30)
            #expect(result.status == 0, "\(agent.output)")
            #expect(agent.output.contains("the session bus closed: stopping"), "\(agent.output)")
            #expect(access(fixture.directory + "/run/agent.sock", F_OK) != 0, "the agent's socket is removed")
        }
    }
}
