// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// Real libsecret and SecretStorage clients against the real `vault agent --secret-service`
/// on a private bus: `secret-tool`, Python `keyring` (SecretStorage's DH session), git's
/// `git-credential-libsecret` through real `git`.
@Suite("vault's Secret Service provider, real clients", .offThePool) struct SecretServiceProviderClientTests {
    @Test("secret-tool: store, lookup, search, clear, lock, unlock")
    func secretTool() async throws {
        // The key cache on: after a client's Lock only `vault unlock` (through it) opens the vault.
        let cache = ["VAULT_KEY_CACHE_TTL": "60"]
        try await ProviderFixture.withProvider(extra: cache) { fixture, agent in
            for (user, secret) in [("alice", "st-secret-a"), ("bob", "st-secret-b")] {
                let store = try await fixture.secretTool(
                    ["store", "--label=\(user) on h", "user", user, "server", "h.example.org"], stdin: secret)
                #expect(store.status == 0, "store \(user): \(store.err)")
            }
            let lookup = try await fixture.secretTool(["lookup", "user", "alice", "server", "h.example.org"])
            #expect(lookup.status == 0 && lookup.out == "st-secret-a", "\(lookup.err)")
            let search = try await fixture.secretTool(["search", "--all", "server", "h.example.org"])
            #expect(search.status == 0, "\(search.err)")
            #expect(search.out.components(separatedBy: "label = ").count == 3, "two items: \(search.out)")
            #expect(search.out.contains("secret = st-secret-b") && search.err.contains("attribute.user = bob"), "\(search.out)\(search.err)")
            let replace = try await fixture.secretTool(
                ["store", "--label=alice again", "user", "alice", "server", "h.example.org"], stdin: "st-secret-a2")
            #expect(replace.status == 0, "\(replace.err)")
            let replaced = try await fixture.secretTool(["search", "--all", "user", "alice"])
            #expect(replaced.out.components(separatedBy: "label = ").count == 2 && replaced.out.contains("st-secret-a2"), "\(replaced.out)")

            // secret-tool lock (Debian's crashes after locking, on GNOME Keyring too: its
            // status is not the test, the collection's state is).
            _ = try await fixture.secretTool(["lock", "--collection=login"])
            #expect(try await fixture.defaultCollectionLocked() == "True")
            let lockedLookup = try await fixture.python(
                "import secretstorage as s, sys; c = s.dbus_init()\n"
                    + "items = list(s.search_items(c, {'user': 'alice'}))\n"
                    + "try:\n    print(items[0].get_secret() and 'read' if items else 'no item found')\n"
                    + "except s.exceptions.LockedException:\n    print('locked')")
            // Locked: the secret is not read (the encrypted file may not even list the item).
            #expect(["locked\n", "no item found\n"].contains(lockedLookup.out), "\(lockedLookup.out)\(lockedLookup.err)")
            // A client's Lock is `vault lock`: the key cache forgot the key too, so a client's
            // Unlock gets a prompt that is dismissed, and only `vault unlock` opens it again.
            _ = try await fixture.secretTool(["search", "--unlock", "user", "alice"])
            #expect(try await fixture.defaultCollectionLocked() == "True", "a client unlocked without the passphrase")
            let unlock = try await fixture.vault(["unlock"], extra: cache)
            #expect(unlock.status == 0, "\(unlock.err)")
            guard try await fixture.defaultCollectionLocked() == "False" else {
                // Where the kernel key cache is unavailable, `vault unlock` cannot reach the agent.
                let probe = try await fixture.vault(["unlock", "--ttl", "5"], extra: cache)
                #expect(probe.err.contains("key cache"), "still locked after vault unlock: \(agent.output)")
                return
            }
            let back = try await fixture.secretTool(["lookup", "user", "alice", "server", "h.example.org"])
            #expect(back.out == "st-secret-a2", "\(back.err)")

            let clear = try await fixture.secretTool(["clear", "user", "alice", "server", "h.example.org"])
            #expect(clear.status == 0, "\(clear.err)")
            let gone = try await fixture.secretTool(["lookup", "user", "alice", "server", "h.example.org"])
            #expect(gone.status == 1 && gone.out.isEmpty, "\(gone.out)\(gone.err)")
            let kept = try await fixture.secretTool(["lookup", "user", "bob"])
            #expect(kept.out == "st-secret-b", "the neighbour was cleared: \(kept.err)")
            #expect(!agent.output.contains("st-secret"), "a secret in the agent's log: \(agent.output)")
        }
    }

    @Test("Python keyring (SecretStorage, DH session first): set, get, delete")
    func pythonKeyring() async throws {
        try await ProviderFixture.withProvider { fixture, agent in
            let script = """
                import sys, keyring, secretstorage
                from keyring.backends import SecretService
                chain = getattr(keyring.get_keyring(), "backends", [keyring.get_keyring()])
                print("secret-service backend chosen:", any(isinstance(b, SecretService.Keyring) for b in chain))
                connection = secretstorage.dbus_init()
                session = secretstorage.util.open_session(connection)
                print("session:", "dh" if session.encrypted else "plain")
                secret = sys.stdin.read()
                keyring.set_password("py-service", "erin", secret)
                print("get matches:", keyring.get_password("py-service", "erin") == secret)
                keyring.delete_password("py-service", "erin")
                print("after delete:", keyring.get_password("py-service", "erin"))
                """
            let result = try await fixture.python(script, stdin: "py-secret-e 9a1c")
            #expect(
                result.out == "secret-service backend chosen: True\nsession: dh\nget matches: True\nafter delete: None\n",
                "\(result.out)\(result.err)")
            #expect(!agent.output.contains("py-secret-e"))
            // What keyring stores, libsecret reads, under keyring's attributes.
            let set = try await fixture.python(
                "import keyring, sys; keyring.set_password('py-service', 'frank', sys.stdin.read())", stdin: "py-secret-f")
            #expect(set.status == 0, "\(set.err)")
            let lookup = try await fixture.secretTool(["lookup", "service", "py-service", "username", "frank"])
            #expect(lookup.out == "py-secret-f", "\(lookup.err)")
        }
    }

    @Test("git's git-credential-libsecret through real git: store, get, erase")
    func gitCredentialLibsecret() async throws {
        try await ProviderFixture.withProvider { fixture, _ in
            let libsecret = try await GitCredentialInteropTests.buildLibsecretHelper(in: fixture.directory)
            var environment = fixture.environment
            environment["GIT_TERMINAL_PROMPT"] = "0"
            environment["GIT_CONFIG_NOSYSTEM"] = "1"
            environment["GIT_ASKPASS"] = "/bin/false"
            func git(_ operation: String, _ input: String) async throws -> ProcessResult {
                try await ChildProcess.runAsync(
                    "/usr/bin/git", ["-c", "credential.helper=", "-c", "credential.helper=\(libsecret)", "credential", operation],
                    environment: environment, stdin: Data(input.utf8))
            }
            let approve = try await git("approve", "protocol=https\nhost=git.example.com\nusername=gina\npassword=git-secret-g\n\n")
            #expect(approve.status == 0 && approve.err.isEmpty, "\(approve.err)")
            let fill = try await git("fill", "protocol=https\nhost=git.example.com\nusername=gina\n\n")
            #expect(fill.status == 0 && fill.out.contains("password=git-secret-g\n"), "\(fill.out)\(fill.err)")
            let lookup = try await fixture.secretTool(["lookup", "server", "git.example.com", "user", "gina", "protocol", "https"])
            #expect(lookup.out == "git-secret-g", "git's item, git's attributes: \(lookup.err)")
            let reject = try await git("reject", "protocol=https\nhost=git.example.com\nusername=gina\npassword=git-secret-g\n\n")
            #expect(reject.status == 0, "\(reject.err)")
            let after = try await git("fill", "protocol=https\nhost=git.example.com\nusername=gina\n\n")
            #expect(!after.out.contains("git-secret-g"), "erased: \(after.out)")
        }
    }
}
