// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// "Not found" that helps: a missing vault file is named, another spelling of the server
/// that holds the item is named, bare host names match without regard to case when read,
/// and nothing of another spelling is ever removed.
@Suite(.offThePool) struct NotFoundHintTests {
    func vault(_ arguments: [String], _ environment: [String: String], stdin: String? = nil) async throws -> ProcessResult {
        try await VaultProcess.vaultAsync(arguments, environment: environment, stdin: stdin.map { Data($0.utf8) })
    }

    @Test("no vault file: load exits 1 naming the path; list and remove say so and exit 0; nothing is created")
    func missingVaultFile() async throws {
        try await withTemporaryDirectory("vault-missing-file") { dir in
            let path = "\(dir)/data/vault.db"
            let environment = VaultProcess.fileBackendEnvironment(home: dir, file: path, passphrase: "missing file passphrase")
            let load = try await vault(["load", "--server", "api.example.com", "--account", "alice"], environment)
            #expect(load.status == 1 && load.out.isEmpty, "\(load.err)")
            #expect(load.err.hasPrefix("vault: no vault file at \(path)") && load.err.split(separator: "\n").count == 1, "\(load.err)")
            let list = try await vault(["list"], environment)
            #expect(list.status == 0 && list.out.isEmpty, "an empty list is no failure: \(list.err)")
            #expect(list.err.hasPrefix("vault: no vault file at \(path)"), "\(list.err)")
            let json = try await vault(["list", "--json"], environment)
            #expect(json.status == 0 && json.out.filter { !$0.isWhitespace } == "[]", "\(json.out)")
            #expect(json.err.hasPrefix("vault: no vault file at \(path)"), "\(json.err)")
            let remove = try await vault(["remove", "--server", "api.example.com", "--account", "alice"], environment)
            #expect(remove.status == 0, "remove stays idempotent: \(remove.err)")
            #expect(remove.err.hasPrefix("vault: no vault file at \(path)"), "\(remove.err)")
            #expect(!FileManager.default.fileExists(atPath: "\(dir)/data"), "nothing was created")
        }
    }

    @Test("file backend: another spelling is named, a bare host reads in any case, list normalises as load, remove leaves other spellings")
    func spellingsOnTheFileBackend() async throws {
        try await withTemporaryDirectory("vault-spelling") { dir in
            let environment = VaultProcess.fileBackendEnvironment(home: dir, file: "\(dir)/vault.db", passphrase: "spelling passphrase")
            #expect(try await vault(["save", "--server", "api.example.com", "--account", "alice"], environment, stdin: "alice-secret").status == 0)
            #expect(try await vault(["save", "--server", "API.Example.com", "--account", "bob"], environment, stdin: "bob-secret").status == 0)
            #expect(
                try await vault(["save", "--server", "https://api.example.com", "--account", "carol"], environment, stdin: "carol-secret").status == 0
            )

            // A URL where a bare host holds the item: exit 1, and the spelling that exists.
            let url = try await vault(["load", "--server", "https://api.example.com", "--account", "alice"], environment)
            #expect(url.status == 1 && url.out.isEmpty, "\(url.err)")
            #expect(url.err.contains("there is one on \"api.example.com\""), "\(url.err)")
            #expect(url.err.split(separator: "\n").count == 1 && !url.err.contains("alice-secret"))
            // And the other way round.
            let bare = try await vault(["load", "--server", "api.example.com", "--account", "carol"], environment)
            #expect(bare.status == 1 && bare.err.contains("there is one on \"https://api.example.com\""), "\(bare.err)")
            // A URL's case never mattered; a bare host's does not either when reading.
            let upper = try await vault(["load", "--server", "HTTPS://API.EXAMPLE.COM/", "--account", "carol"], environment)
            #expect(upper.status == 0 && upper.out == "carol-secret", "\(upper.err)")
            let lower = try await vault(["load", "--server", "api.example.com", "--account", "bob"], environment)
            #expect(lower.status == 0 && lower.out == "bob-secret", "\(lower.err)")

            // list --server normalises as load does.
            let listedURL = try await vault(["list", "--server", "HTTPS://API.example.com/"], environment)
            #expect(listedURL.status == 0 && listedURL.out.contains("https://api.example.com\tcarol"), "\(listedURL.out) \(listedURL.err)")
            #expect(!listedURL.out.contains("\tbob\t"))
            let listedHost = try await vault(["list", "--server", "api.EXAMPLE.com"], environment)
            #expect(listedHost.out.contains("api.example.com\talice") && listedHost.out.contains("API.Example.com\tbob"), "\(listedHost.out)")

            // remove acts on the exact spelling only: the other one stays, and vault says so.
            let remove = try await vault(["remove", "--server", "api.example.com", "--account", "bob"], environment)
            #expect(remove.status == 0, "\(remove.err)")
            #expect(remove.err.contains("on \"API.Example.com\" was left alone"), "\(remove.err)")
            let still = try await vault(["load", "--server", "API.Example.com", "--account", "bob"], environment)
            #expect(still.status == 0 && still.out == "bob-secret", "\(still.err)")
            let exact = try await vault(["remove", "--server", "API.Example.com", "--account", "bob"], environment)
            #expect(exact.status == 0 && exact.err.isEmpty, "\(exact.err)")
            let gone = try await vault(["load", "--server", "api.example.com", "--account", "bob"], environment)
            #expect(gone.status == 1 && gone.err.contains("no item"), "\(gone.err)")
        }
    }

    @Test(
        "keyring: another program's item of another case is read, named, and never removed",
        .needsKeyring)
    func spellingsOnTheKeyring() async throws {
        try KeyringTestEnvironment.require()
        try await withTemporaryDirectory("vault-spelling-ss") { dir in
            var environment = VaultProcess.baseEnvironment(home: dir)
            environment["VAULT_BACKEND"] = "secret-service"
            let host = "Spell-\(getpid())-\(UUID().uuidString.prefix(8)).Example.com"
            let lower = host.lowercased()
            let secretTool = { (arguments: [String], stdin: String?) async throws -> ProcessResult in
                try await ChildProcess.runAsync("/usr/bin/secret-tool", arguments, environment: environment, stdin: stdin.map { Data($0.utf8) })
            }
            let stored = try await secretTool(["store", "--label", "theirs", "user", "dave", "server", host], "dave-secret")
            #expect(stored.status == 0, "\(stored.err)")
            defer { _ = try? ChildProcess.run("/usr/bin/secret-tool", ["clear", "user", "dave", "server", host], environment: environment) }

            let read = try await vault(["load", "--server", lower, "--account", "dave"], environment)
            #expect(read.status == 0 && read.out == "dave-secret", "a bare host reads in any case: \(read.err)")
            let listed = try await vault(["list", "--server", lower], environment)
            #expect(listed.status == 0 && listed.out.contains("\(host)\tdave"), "\(listed.out) \(listed.err)")
            let url = try await vault(["load", "--server", "https://\(lower)", "--account", "dave"], environment)
            #expect(url.status == 1 && url.err.contains("there is one on \"\(host)\""), "\(url.err)")

            let remove = try await vault(["remove", "--server", lower, "--account", "dave"], environment)
            #expect(remove.status == 0 && remove.err.contains("was left alone"), "\(remove.err)")
            let lookup = try await secretTool(["lookup", "user", "dave", "server", host], nil)
            #expect(lookup.status == 0 && lookup.out == "dave-secret", "the other spelling's item is untouched: \(lookup.err)")
        }
    }
}
