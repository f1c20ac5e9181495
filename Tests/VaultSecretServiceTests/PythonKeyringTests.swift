// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultTestSupport

@Suite("Secret Service provider: Python keyring", .serialized, .offThePool)
struct PythonKeyringTests {
    static let script = """
        import sys
        import keyring
        from keyring.backends import SecretService
        keyring.set_keyring(SecretService.Keyring())
        action = sys.argv[1]
        if action == 'set':
            keyring.set_password('vault-test-service', 'alice', sys.stdin.read())
        elif action == 'get':
            value = keyring.get_password('vault-test-service', 'alice')
            sys.stdout.write('<none>' if value is None else value)
        elif action == 'delete':
            keyring.delete_password('vault-test-service', 'alice')
        """

    @Test("keyring with SecretStorage: set, get, delete")
    func setGetDelete() async throws {
        try await withProvider { harness in
            let file = "\(harness.bus.directory)/keyring-client.py"
            try Self.script.write(toFile: file, atomically: true, encoding: .utf8)
            let set = try await harness.run("/usr/bin/python3", [file, "set"], stdin: "py-secret-7Q")
            #expect(set.status == 0, "\(set.err)")
            let item = try #require(harness.backing.current.items.values.first)
            #expect(item.attributes["service"] == "vault-test-service" && item.attributes["username"] == "alice", "\(item.attributes)")
            #expect(item.secret == Secret("py-secret-7Q"))

            let got = try await harness.run("/usr/bin/python3", [file, "get"])
            #expect(got.status == 0 && got.out == "py-secret-7Q", "\(got.out) \(got.err)")
            let again = try await harness.run("/usr/bin/python3", [file, "set"], stdin: "py-secret-8R")
            #expect(again.status == 0 && harness.backing.current.items.count == 1, "\(again.err)")
            #expect(try await harness.run("/usr/bin/python3", [file, "get"]).out == "py-secret-8R")

            let deleted = try await harness.run("/usr/bin/python3", [file, "delete"])
            #expect(deleted.status == 0, "\(deleted.err)")
            #expect(harness.backing.current.items.isEmpty)
            #expect(try await harness.run("/usr/bin/python3", [file, "get"]).out == "<none>")
            #expect(!harness.log.text.contains("py-secret"))
        }
    }
}
