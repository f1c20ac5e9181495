// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

extension SynchronousProcessSuites {
    /// `vault` runs the store commands itself and hands every other command to
    /// `vault-auth` next to it (`exec`), so a store command never loads networking.
    @Suite final class ExecutableSplitTests {
        let dir: String

        init() throws { dir = try TemporaryDirectory.make(prefix: "vault-split") }
        deinit { TemporaryDirectory.remove(dir) }

        var vaultAuthPath: String {
            URL(fileURLWithPath: VaultProcess.vaultPath).deletingLastPathComponent().appendingPathComponent("vault-auth").path
        }

        /// The store executable carries no SwiftNIO or AsyncHTTPClient; `vault-auth` does
        /// (so this check can fail).
        @Test func theStoreExecutableLinksNoNetworking() throws {
            let store = try Data(contentsOf: URL(fileURLWithPath: VaultProcess.vaultPath))
            let all = try Data(contentsOf: URL(fileURLWithPath: vaultAuthPath))
            for module in ["AsyncHTTPClient", "NIOPosix", "JWTKit"] {
                #expect(store.range(of: Data(module.utf8)) == nil, "vault links \(module)")
                #expect(all.range(of: Data(module.utf8)) != nil, "vault-auth should link \(module)")
            }
        }

        /// Every command is listed by `vault --help`, and a sign-in command's help comes from
        /// `vault-auth` under the name `vault`.
        @Test func helpListsEveryCommand() throws {
            let environment = VaultProcess.baseEnvironment(home: dir)
            let help = try VaultProcess.vault(["--help"], environment: environment)
            #expect(help.status == 0)
            for command in ["save", "load", "remove", "list", "passwd", "backend", "lock", "unlock", "login", "token", "request", "logout", "whoami"]
            {
                #expect(help.out.contains("\n  \(command) "), "vault --help lists \(command): \(help.out)")
            }
            let login = try VaultProcess.vault(["login", "--help"], environment: environment)
            #expect(login.status == 0)
            #expect(login.out.contains("USAGE: vault login"), "\(login.out)")
            let version = try VaultProcess.vault(["--version"], environment: environment)
            #expect(version.status == 0 && !version.out.isEmpty)
        }

        /// Without `vault-auth` beside it, `vault` still runs the store commands, and a
        /// sign-in command fails with one line naming what is missing (exit 4).
        @Test func withoutVaultAuthTheStoreCommandsStillWork() throws {
            let lonely = "\(dir)/bin/vault"
            try FileManager.default.createDirectory(atPath: "\(dir)/bin", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: VaultProcess.vaultPath, toPath: lonely)
            // A child another test forks meanwhile may hold the copy's write descriptor until
            // it execs (ETXTBSY); wait (bounded) until the copy runs.
            let started = try ScriptFile.retryingBusyRefusal { try ChildProcess.run(lonely, ["--version"], environment: [:]) }
            #expect(started.status == 0, "\(started.status) \(started.err)")
            let environment = VaultProcess.fileBackendEnvironment(home: dir, file: "\(dir)/vault.db", passphrase: "split-pass")
            let saved = try ChildProcess.run(
                lonely, ["save", "--server", "s.example", "--account", "a"], environment: environment, stdin: Data("x".utf8))
            #expect(saved.status == 0, "\(saved.err)")
            let loaded = try ChildProcess.run(lonely, ["load", "--server", "s.example", "--account", "a"], environment: environment)
            #expect(loaded.status == 0 && loaded.out == "x", "\(loaded.err)")
            let token = try ChildProcess.run(lonely, ["token", "--server", "https://s.example", "--account", "a"], environment: environment)
            #expect(token.status == 4, "\(token.status) \(token.err)")
            #expect(token.err.contains("vault-auth") && token.err.split(separator: "\n").count == 1, "\(token.err)")
            #expect(token.out.isEmpty)
            // Its help is the store commands', and says what is missing (issue 38 §5.7).
            let help = try ChildProcess.run(lonely, ["--help"], environment: environment)
            #expect(help.status == 0, "\(help.err)")
            #expect(help.out.contains("save") && help.out.contains("load") && !help.out.contains("Log in once"), "\(help.out)")
            #expect(
                help.err == "vault: \(dir)/bin/vault-auth is missing: this help shows the store commands only; the sign-in commands "
                    + "(login, token, request, …) need vault-auth installed next to vault\n", "\(help.err)")
        }

        /// A `vault-auth` that is really `vault` (a copy, or a link) makes `vault` stop with
        /// one line and exit 4, instead of running itself for ever.
        @Test(arguments: ["copy", "link"])
        func aVaultAuthThatIsVaultStops(how: String) throws {
            try FileManager.default.createDirectory(atPath: "\(dir)/\(how)", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: VaultProcess.vaultPath, toPath: "\(dir)/\(how)/vault")
            if how == "copy" {
                try FileManager.default.copyItem(atPath: VaultProcess.vaultPath, toPath: "\(dir)/\(how)/vault-auth")
            } else {
                try FileManager.default.createSymbolicLink(atPath: "\(dir)/\(how)/vault-auth", withDestinationPath: "vault")
            }
            let result = try ChildProcess.run(
                "\(dir)/\(how)/vault", ["whoami", "--server", "https://s.example", "--account", "a"],
                environment: VaultProcess.baseEnvironment(home: dir), timeout: 20)
            #expect(result.status == 4, "\(result.status) \(result.err)")
            #expect(result.err.contains("runs vault again") && result.err.split(separator: "\n").count == 1, "\(result.err)")
        }

        /// A completion script written from a store command still offers every command.
        @Test func completionScriptsKnowEveryCommand() throws {
            let script = try VaultProcess.vault(
                ["list", "--generate-completion-script", "bash"], environment: VaultProcess.baseEnvironment(home: dir))
            #expect(script.status == 0)
            #expect(script.out.contains("login") && script.out.contains("whoami") && script.out.contains("unlock"), "\(script.out.prefix(500))")
        }

        /// A command run through `vault-auth` keeps vault's process: the exit status is the
        /// command's, and a usage error is vault's one line with exit 2.
        @Test func aHandedOverCommandKeepsItsExitStatus() throws {
            let environment = VaultProcess.fileBackendEnvironment(home: dir, file: "\(dir)/vault.db", passphrase: "split-pass")
            let missing = try VaultProcess.vault(["token", "--server", "https://s.example", "--account", "nobody"], environment: environment)
            #expect(missing.status == 1, "a missing login is the command's own failure: \(missing.status) \(missing.err)")
            #expect(missing.err.contains("no account \"nobody\" on https://s.example"), "\(missing.err)")
            let bad = try VaultProcess.vault(["whoami", "--bogus"], environment: environment)
            #expect(bad.status == 2, "\(bad.err)")
            #expect(bad.err.hasPrefix("vault: ") && bad.err.split(separator: "\n").count == 1, "\(bad.err)")
            let unknown = try VaultProcess.vault(["frobnicate"], environment: environment)
            #expect(unknown.status == 2, "\(unknown.err)")
        }
    }
}
