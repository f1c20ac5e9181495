// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// The passphrase as a person meets it: three tries at a terminal (as `sudo`), a notice
/// when the first `save` creates the vault file, and a warning for a short new passphrase.
@Suite(.offThePool) struct PassphraseHelpCLITests {
    typealias Session = TerminalPromptCLITests.Session

    func environment(_ dir: String) -> [String: String] {
        var environment = VaultProcess.baseEnvironment(home: dir)
        environment["VAULT_BACKEND"] = "file"
        environment["VAULT_FILE"] = "\(dir)/vault.db"
        environment["TERM"] = "dumb"
        return environment
    }

    /// A vault at `dir/vault.db` under `passphrase`, with one item.
    func makeVault(_ dir: String, passphrase: String) async throws {
        var environment = environment(dir)
        environment["VAULT_PASSPHRASE"] = passphrase
        let saved = try await VaultProcess.vaultAsync(
            ["save", "--server", "s", "--account", "a"], environment: environment, stdin: Data("tries-secret-77".utf8))
        #expect(saved.status == 0, "\(saved.err)")
    }

    @Test("at a terminal a wrong passphrase may be typed three times; the third wrong one exits 3")
    func threeTriesThenExit3() async throws {
        try await withTemporaryDirectory("vault-tries") { dir in
            try await makeVault(dir, passphrase: "the right passphrase")
            let load = try Session(["load", "--server", "s", "--account", "a"], environment: environment(dir))
            try await load.answer("Vault passphrase:", with: "wrong one")
            try await load.answer("Vault passphrase:", with: "wrong two", occurrence: 2)
            try await load.answer("Vault passphrase:", with: "wrong three", occurrence: 3)
            #expect(try await load.finish() == 3, "\(load.text)")
            #expect(load.text.components(separatedBy: "Sorry, try again.").count == 3, "\(load.text)")
            #expect(load.text.components(separatedBy: "Vault passphrase:").count == 4, "never a fourth prompt: \(load.text)")
            #expect(load.text.contains("wrong passphrase") && !load.text.contains("tries-secret-77"), "\(load.text)")
        }
    }

    @Test("at a terminal the right passphrase on the third try opens the vault")
    func rightOnTheThirdTry() async throws {
        try await withTemporaryDirectory("vault-tries-ok") { dir in
            try await makeVault(dir, passphrase: "the right passphrase")
            let load = try Session(["load", "--server", "s", "--account", "a"], environment: environment(dir))
            try await load.answer("Vault passphrase:", with: "wrong one")
            try await load.answer("Vault passphrase:", with: "wrong two", occurrence: 2)
            try await load.answer("Vault passphrase:", with: "the right passphrase", occurrence: 3)
            #expect(try await load.finish() == 0, "\(load.text)")
            #expect(load.text.contains("tries-secret-77"), "\(load.text)")
        }
    }

    @Test("a given passphrase that is wrong is refused at once: exit 3, no second try")
    func givenPassphraseIsNotRetried() async throws {
        try await withTemporaryDirectory("vault-tries-given") { dir in
            try await makeVault(dir, passphrase: "the right passphrase")
            var environment = environment(dir)
            environment["VAULT_PASSPHRASE"] = "a wrong passphrase"
            let load = try await VaultProcess.vaultAsync(["load", "--server", "s", "--account", "a"], environment: environment)
            #expect(load.status == 3 && load.out.isEmpty, "\(load.err)")
            #expect(load.err == "vault: wrong passphrase (or the vault's header was modified)\n", "\(load.err)")
            #expect(!load.err.contains("fleet") && !load.err.contains("parameters record"), "file words for a file user")
        }
    }

    @Test("the first save says it creates a new vault file, and where; later saves do not")
    func newVaultNotice() async throws {
        try await withTemporaryDirectory("vault-new-notice") { dir in
            var environment = environment(dir)
            environment["VAULT_PASSPHRASE"] = "new vault passphrase"
            let first = try await VaultProcess.vaultAsync(
                ["save", "--server", "s", "--account", "a"], environment: environment, stdin: Data("one".utf8))
            #expect(first.status == 0, "\(first.err)")
            #expect(first.err == "vault: created a new vault file at \(dir)/vault.db\n", "\(first.err)")
            let second = try await VaultProcess.vaultAsync(
                ["save", "--server", "s", "--account", "b"], environment: environment, stdin: Data("two".utf8))
            #expect(second.status == 0 && second.err.isEmpty, "\(second.err)")
        }
    }

    @Test("a new passphrase shorter than 8 characters gets a warning, and works")
    func shortPassphraseWarning() async throws {
        try await withTemporaryDirectory("vault-short") { dir in
            let save = try Session(["save", "--server", "s", "--account", "a"], environment: environment(dir))
            try await save.answer("Secret for a@s:", with: "short-secret")
            try await save.answer("New vault passphrase:", with: "abc")
            try await save.answer("Repeat it:", with: "abc")
            #expect(try await save.finish() == 0, "\(save.text)")
            #expect(save.text.contains("shorter than 8 characters"), "\(save.text)")
            #expect(save.text.contains("created a new vault file at \(dir)/vault.db"), "\(save.text)")

            let long = try Session(
                ["save", "--server", "s", "--account", "b"], environment: environment(dir).merging(["VAULT_FILE": "\(dir)/long.db"]) { $1 })
            try await long.answer("Secret for b@s:", with: "long-secret")
            try await long.answer("New vault passphrase:", with: "a long enough passphrase")
            try await long.answer("Repeat it:", with: "a long enough passphrase")
            #expect(try await long.finish() == 0, "\(long.text)")
            #expect(!long.text.contains("shorter than"), "\(long.text)")

            var environment = environment(dir)
            environment["VAULT_PASSPHRASE"] = "abc"
            let load = try await VaultProcess.vaultAsync(["load", "--server", "s", "--account", "a"], environment: environment)
            #expect(load.status == 0 && load.out == "short-secret", "a warning, not a refusal: \(load.err)")
        }
    }
}
