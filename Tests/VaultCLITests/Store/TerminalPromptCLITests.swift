// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// The terminal prompts of `vault`, on a real pseudo-terminal (`script` from util-linux
/// gives the child a controlling tty). Each answer is typed only after its prompt shows,
/// the way a person would.
@Suite(.offThePool) struct TerminalPromptCLITests {
    /// A `vault` process on a pty: what it shows, and a way to type into it (a
    /// `ChildProcess` running `script`, its stdin kept open, stderr into stdout as on a terminal).
    struct Session {
        let child: ChildProcess

        init(_ arguments: [String], environment: [String: String]) throws {
            let command = ([VaultProcess.vaultPath] + arguments).map { "'\($0)'" }.joined(separator: " ")
            child = try ChildProcess(
                "script", ["-qec", command, "/dev/null"], environment: environment, keepingStdinOpen: true, stderr: .intoStdout)
        }

        var text: String { child.output }

        /// Waits (at most 20 s) until `prompt` has been shown `occurrence` times, then types `line`.
        func answer(_ prompt: String, with line: String, occurrence: Int = 1) async throws {
            guard try await child.waitForOutput(timeout: 20, until: { $0.components(separatedBy: prompt).count - 1 >= occurrence }) != nil
            else {
                Issue.record("no prompt \"\(prompt)\" in: \(text)")
                return
            }
            child.write(line + "\n")
        }

        /// Waits (at most 20 s) until `prompt` has been shown, without typing anything.
        func waitFor(_ prompt: String) async throws {
            if try await child.waitForOutput(timeout: 20, until: { $0.contains(prompt) }) == nil {
                Issue.record("no prompt \"\(prompt)\" in: \(text)")
            }
        }

        func finish() async throws -> Int32 {
            try await child.finishAsync(timeout: 20).status
        }
    }

    @Test func saveAsksForTheSecretAndTwiceForANewPassphraseWithoutEcho() async throws {
        try await withTemporaryDirectory("vault-pty") { dir in
            var env = VaultProcess.baseEnvironment(home: dir)
            env["VAULT_BACKEND"] = "file"
            env["VAULT_FILE"] = "\(dir)/vault.db"
            env["TERM"] = "dumb"

            let save = try Session(["save", "--server", "s", "--account", "a"], environment: env)
            try await save.answer("Secret for a@s:", with: "typed-secret-4d1")
            try await save.answer("New vault passphrase:", with: "typed-passphrase-9c2")
            try await save.answer("Repeat it:", with: "typed-passphrase-9c2")
            #expect(try await save.finish() == 0, "\(save.text)")
            #expect(!save.text.contains("typed-secret-4d1"), "the secret was echoed")
            #expect(!save.text.contains("typed-passphrase-9c2"), "the passphrase was echoed")

            let load = try Session(["load", "--server", "s", "--account", "a"], environment: env)
            try await load.answer("Vault passphrase:", with: "typed-passphrase-9c2")
            #expect(try await load.finish() == 0, "\(load.text)")
            #expect(load.text.contains("typed-secret-4d1"), "load prints the secret (with a newline on a terminal)")
            #expect(!load.text.contains("typed-passphrase-9c2"))

            // Issue 38 §5.7: a mistyped repeat asks again (3 tries); the secret typed first is kept.
            let slip = try Session(
                ["save", "--server", "s", "--account", "c"], environment: env.merging(["VAULT_FILE": "\(dir)/slip.db"]) { $1 })
            try await slip.answer("Secret for c@s:", with: "kept-secret-7e1")
            try await slip.answer("New vault passphrase:", with: "one-passphrase")
            try await slip.answer("Repeat it:", with: "one-passphrasE")
            try await slip.answer("New vault passphrase:", with: "one-passphrase", occurrence: 2)
            try await slip.answer("Repeat it:", with: "one-passphrase", occurrence: 2)
            #expect(try await slip.finish() == 0, "\(slip.text)")
            #expect(slip.text.contains("the two passphrases differ; try again (2 tries left)"), "\(slip.text)")
            let slipLoad = try await VaultProcess.vaultAsync(
                ["load", "--server", "s", "--account", "c"],
                environment: env.merging(["VAULT_FILE": "\(dir)/slip.db", "VAULT_PASSPHRASE": "one-passphrase"]) { $1 })
            #expect(slipLoad.status == 0 && slipLoad.out == "kept-secret-7e1", "\(slipLoad.err)")

            let mismatch = try Session(
                ["save", "--server", "s", "--account", "b"], environment: env.merging(["VAULT_FILE": "\(dir)/other.db"]) { $1 })
            try await mismatch.answer("Secret for a@s:".replacingOccurrences(of: "a@s", with: "b@s"), with: "x")
            for round in 1...3 {
                try await mismatch.answer("New vault passphrase:", with: "one", occurrence: round)
                try await mismatch.answer("Repeat it:", with: "two", occurrence: round)
            }
            #expect(try await mismatch.finish() == 2)
            #expect(mismatch.text.contains("the two passphrases differ (3 tries); nothing was changed"), "\(mismatch.text)")
            #expect(!FileManager.default.fileExists(atPath: "\(dir)/other.db"))

            // Enter alone at the secret's prompt: said as what happened, not as a pipe's advice.
            let empty = try Session(["save", "--server", "s", "--account", "d"], environment: env)
            try await empty.answer("Secret for d@s:", with: "")
            #expect(try await empty.finish() == 2)
            #expect(empty.text.contains("the secret is empty: nothing was typed"), "\(empty.text)")
        }
    }
}
