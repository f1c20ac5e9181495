// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// The shape of the command line (issue 24): positional server and account, typos named
/// with a suggestion, one style for usage errors, the short usage, and help that fits.
@Suite(.offThePool) struct CommandShapeTests {
    /// `vault-auth`, beside `vault`.
    static let vaultAuthPath = URL(fileURLWithPath: VaultProcess.vaultPath).deletingLastPathComponent().appendingPathComponent("vault-auth").path

    /// Every command of `vault --help`.
    static let commands = [
        "save", "load", "remove", "list", "passwd", "backend", "lock", "unlock", "login", "status", "token", "request", "logout",
        "whoami", "exec",
    ]

    /// Runs `body` with a file-backend environment in a fresh directory.
    func withVault<T>(_ body: ([String: String]) async throws -> T) async throws -> T {
        try await withTemporaryDirectory("vault-shape") { dir in
            try await body(VaultProcess.fileBackendEnvironment(home: dir, file: "\(dir)/vault/vault.db", passphrase: "shape passphrase"))
        }
    }

    func run(
        _ executable: String, _ arguments: [String], _ environment: [String: String], stdin: String? = nil
    ) async throws
        -> ProcessResult
    {
        try await ChildProcess.runAsync(executable, arguments, environment: environment, stdin: stdin.map { Data($0.utf8) }, timeout: 60)
    }

    /// Exit 2 and exactly `line` (one line) on stderr, nothing on stdout.
    func expectUsage(_ result: ProcessResult, _ line: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 2, "\(result.err)", sourceLocation: sourceLocation)
        #expect(result.err == "vault: \(line)\n", sourceLocation: sourceLocation)
        #expect(result.out.isEmpty, sourceLocation: sourceLocation)
    }

    @Test(arguments: [VaultProcess.vaultPath, CommandShapeTests.vaultAuthPath])
    func typosAreNamedWithASuggestion(_ executable: String) async throws {
        try await withVault { env in
            expectUsage(
                try await run(executable, ["load", "--sever", "x", "--account", "y"], env),
                "unknown option '--sever'; did you mean '--server'? (see vault load --help)")
            expectUsage(
                try await run(executable, ["lod", "--server", "x", "--account", "y"], env),
                "unknown command 'lod'; did you mean 'load'? (see vault --help)")
            expectUsage(
                try await run(executable, ["token", "--acount", "alice"], env),
                "unknown option '--acount'; did you mean '--account'? (see vault token --help)")
            expectUsage(
                try await run(executable, ["whoami", "--timeout", "5"], env), "unknown option '--timeout' (see vault whoami --help)")
            expectUsage(try await run(executable, ["frobnicate"], env), "unknown command 'frobnicate' (see vault --help)")
            expectUsage(
                try await run(executable, ["--verison"], env), "unknown option '--verison'; did you mean '--version'? (see vault --help)")
        }
    }

    @Test(arguments: [VaultProcess.vaultPath, CommandShapeTests.vaultAuthPath])
    func parserMessagesShareOneStyle(_ executable: String) async throws {
        try await withVault { env in
            for (arguments, command) in [
                (["list", "--backend", "nope"], "list"), (["save", "x", "y", "--label"], "save"), (["load", "a", "b", "c"], "load"),
                (["unlock", "--ttl", "0"], "unlock"), (["load"], "load"), (["request"], "request"),
            ] {
                let result = try await run(executable, arguments, env)
                #expect(result.status == 2, "\(arguments): \(result.err)")
                let lines = result.err.split(separator: "\n", omittingEmptySubsequences: false)
                #expect(lines.count == 2 && lines[1].isEmpty, "one line: \(result.err)")
                let line = String(lines[0])
                #expect(line.hasPrefix("vault: "), "\(line)")
                let first = line.dropFirst("vault: ".count).first
                #expect(first.map { !$0.isUppercase } ?? false, "lower-case start: \(line)")
                #expect(line.hasSuffix("(see vault \(command) --help)"), "\(line)")
                #expect(!line.contains(". ("), "no closing period: \(line)")
            }
        }
    }

    @Test func positionalServerAndAccount() async throws {
        try await withVault { env in
            let vault = VaultProcess.vaultPath
            #expect(try await run(vault, ["save", "api.example.com", "alice"], env, stdin: "s1\n").status == 0)
            #expect(try await run(vault, ["load", "api.example.com", "alice"], env).out == "s1")
            #expect(try await run(vault, ["load", "--server", "api.example.com", "--account", "alice"], env).out == "s1")
            // A flag for one, the other alone.
            #expect(try await run(vault, ["load", "--server", "api.example.com", "alice"], env).out == "s1")
            #expect(try await run(vault, ["load", "api.example.com", "--account", "alice"], env).out == "s1")
            #expect(try await run(vault, ["save", "--server", "api.example.com", "--account", "bob"], env, stdin: "s2").status == 0)
            #expect(try await run(vault, ["save", "other.example.com", "carol"], env, stdin: "s3").status == 0)
            let listed = try await run(vault, ["list", "api.example.com"], env)
            #expect(listed.status == 0)
            #expect(listed.out.contains("alice") && listed.out.contains("bob") && !listed.out.contains("carol"), "\(listed.out)")
            #expect(try await run(vault, ["list", "--server", "other.example.com"], env).out.contains("carol"))
            #expect(try await run(vault, ["remove", "api.example.com", "alice"], env).status == 0)
            #expect(try await run(vault, ["load", "api.example.com", "alice"], env).status == 1)

            // The same name twice, or too many: one line, exit 2.
            expectUsage(
                try await run(vault, ["load", "api.example.com", "bob", "--server", "api.example.com"], env),
                "the server is given twice: 'api.example.com' and --server 'api.example.com' (see vault load --help)")
            expectUsage(
                try await run(vault, ["load", "a.example.com", "bob", "--account", "carol"], env),
                "the account is given twice: 'bob' and --account 'carol' (see vault load --help)")
            expectUsage(
                try await run(vault, ["list", "a.example.com", "--server", "b.example.com"], env),
                "the server is given twice: 'a.example.com' and --server 'b.example.com' (see vault list --help)")
            expectUsage(
                try await run(vault, ["load", "api.example.com"], env),
                "give the account: SERVER ACCOUNT, or --server S --account A (see vault load --help)")
        }
    }

    @Test(arguments: [VaultProcess.vaultPath, CommandShapeTests.vaultAuthPath])
    func noArgumentsIsAShortUsage(_ executable: String) async throws {
        try await withVault { env in
            let result = try await run(executable, [], env)
            #expect(result.status == 2)
            #expect(result.out.isEmpty)
            let lines = result.err.split(separator: "\n")
            #expect(lines.first == "usage: vault <command> [<server> <account>] [<options>]", "\(result.err)")
            #expect(lines.count <= 14, "short: \(result.err)")
            #expect(result.err.contains("see vault --help"))
            for command in Self.commands { #expect(result.err.contains(command), "\(command) listed") }
            // Issue 38 §5.3: a few commands to start from, each one the README's quick start
            // runs (DocsExamplesTests), so none of them can rot.
            let examples = lines.filter { $0.hasPrefix("  ") }
            #expect((3...5).contains(examples.count), "\(result.err)")
            let readme = try String(contentsOfFile: Self.readmePath, encoding: .utf8)
            let quickStart = try #require(
                readme.components(separatedBy: "### Quick start").dropFirst().first?.components(separatedBy: "\n### ").first)
            let commands = quickStart.split(separator: "\n").map { line in
                String(line.split(separator: "#", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces)
            }
            for example in examples {
                #expect(commands.contains(example.trimmingCharacters(in: .whitespaces)), "not in the README's quick start: \(example)")
            }
            let help = try await run(executable, ["--help"], env)
            for example in examples { #expect(help.out.contains(example), "vault --help shows \(example)") }
        }
    }

    static let readmePath: String = {
        PackageRoot.appending("README.md")
    }()

    /// Lines of the discussion that are commands to type (or their continuations).
    static func exampleLines(_ help: String) -> [Substring] {
        let overview = help.components(separatedBy: "USAGE:").first ?? ""
        return overview.split(separator: "\n").filter { line in
            let trimmed = line.drop { $0 == " " }
            return line.hasPrefix("  ") && ["vault ", "printf ", "app-code ", "| ", "--", "-- "].contains { trimmed.hasPrefix($0) }
        }
    }

    @Test func helpFitsAndExamplesAreWhole() async throws {
        try await withVault { env in
            for command in [[]] + (Self.commands + ["agent"]).map({ [$0] }) + [["help", "options"]] {
                let topic = command == ["help", "options"]
                let help = try await run(VaultProcess.vaultPath, topic ? command : command + ["--help"], env)
                #expect(help.status == 0, "\(command): \(help.err)")
                for line in help.out.split(separator: "\n") {
                    #expect(line.count <= 80, "\(command) --help: \(line.count) columns: \(line)")
                }
                let examples = topic ? [] : Self.exampleLines(help.out)
                for (index, line) in examples.enumerated() {
                    #expect(line.count <= 76, "\(command) --help example of \(line.count) columns: \(line)")
                    // A continued line is followed by its continuation, never by prose.
                    if line.hasSuffix("\\") {
                        #expect(index + 1 < examples.count, "\(command): \(line) continues into nothing")
                    }
                }
            }
        }
    }

    @Test func eachCommandListsOnlyItsOptions() async throws {
        try await withVault { env in
            func help(_ command: String) async throws -> String {
                let result = try await run(VaultProcess.vaultPath, [command, "--help"], env)
                #expect(result.status == 0)
                return result.out
            }
            let whoami = try await help("whoami")
            #expect(!whoami.contains("--timeout"), "\(whoami)")
            #expect(whoami.contains("SIGN-IN OPTIONS:") && whoami.contains("--server"))
            let lock = try await help("lock")
            for absent in ["--prompt-timeout", "--etcd-endpoints", "--passphrase-file", "--no-key-cache"] {
                #expect(!lock.contains(absent), "lock --help offers \(absent)")
            }
            let backend = try await help("backend")
            #expect(!backend.contains("--passphrase-file") && !backend.contains("--no-prompt"))
            let unlock = try await help("unlock")
            #expect(unlock.contains("--passphrase-file") && !unlock.contains("--etcd-") && !unlock.contains("--no-key-cache"))
            let load = try await help("load")
            for group in ["STORE OPTIONS:", "KEYRING OPTIONS:", "ETCD OPTIONS:"] { #expect(!load.contains(group), "\(group)") }
            #expect(load.contains("USAGE: vault load <server> <account>"), "\(load)")
            let token = try await help("token")
            #expect(token.contains("SIGN-IN OPTIONS:") && token.contains("--timeout"))
            #expect(token.contains("refreshed"), "-v says what it reports")
            let manual = try await run(VaultProcess.vaultPath, ["--help"], env).out
            for code in ["126", "127", "130", "143"] { #expect(manual.contains(code), "exit code \(code) listed") }
        }
    }

    /// The commands whose help hides the shared store options and points at `vault help options`.
    static let sharingCommands = ["save", "load", "remove", "list", "login", "status", "token", "request", "logout", "whoami", "exec", "agent"]

    @Test func sharedOptionsAreDocumentedOnce() async throws {
        try await withVault { env in
            let shared = [
                "--backend", "--file", "--verbose", "--passphrase-file", "--no-key-cache", "--prompt-timeout", "--no-prompt",
                "--etcd-endpoints", "--etcd-insecure-http", "--etcd-prefix", "--etcd-cacert", "--etcd-cert", "--etcd-key",
                "--etcd-user", "--etcd-password-file",
            ]
            for command in Self.sharingCommands {
                let help = try await run(VaultProcess.vaultPath, [command, "--help"], env)
                #expect(help.status == 0, "\(command): \(help.err)")
                for option in shared { #expect(!help.out.contains(option + " "), "\(command) --help repeats \(option)") }
                #expect(help.out.contains("vault help options"), "\(command) --help: \(help.out)")
            }
            let login = try await run(VaultProcess.vaultPath, ["login", "--help"], env)
            #expect(login.out.split(separator: "\n").count < 110, "login --help: \(login.out.split(separator: "\n").count) lines")
            // Once, whole, from either executable: each option with its environment variable.
            for executable in [VaultProcess.vaultPath, Self.vaultAuthPath] {
                let topic = try await run(executable, ["help", "options"], env)
                #expect(topic.status == 0 && topic.err.isEmpty, "\(topic.err)")
                for option in shared { #expect(topic.out.contains(option), "vault help options lacks \(option)") }
                for group in ["STORE OPTIONS:", "KEYRING OPTIONS:", "ETCD OPTIONS:", "VAULT_BACKEND", "VAULT_ETCD_ENDPOINTS"] {
                    #expect(topic.out.contains(group), "vault help options lacks \(group)")
                }
                #expect(!topic.out.contains("USAGE:") && !topic.out.contains("--help"), "\(topic.out)")
            }
        }
    }

    @Test func aHiddenSharedOptionIsStillKnownToUsageErrors() async throws {
        try await withVault { env in
            expectUsage(
                try await run(VaultProcess.vaultPath, ["load", "h.example.com", "a", "--backnd", "file"], env),
                "unknown option '--backnd'; did you mean '--backend'? (see vault load --help)")
            expectUsage(
                try await run(VaultProcess.vaultPath, ["load", "h.example.com", "a", "--no-prompt", "--bogus"], env),
                "unknown option '--bogus' (see vault load --help)")
            expectUsage(
                try await run(Self.vaultAuthPath, ["token", "h.example.com", "a", "-backend", "file"], env),
                "unknown option '-backend'; did you mean '--backend'? (see vault token --help)")
        }
    }

    /// Attack review 58: a single-dash word holding an `h` was read as `-h`: help and exit 0,
    /// the command silently not run (`vault agent -check` was a health check that always passed).
    @Test func aSingleDashWordIsNeverReadAsHelp() async throws {
        try await withVault { env in
            expectUsage(
                try await run(VaultProcess.vaultPath, ["save", "h.example.com", "bob", "-hunter2"], env, stdin: "s"),
                "unknown option '-hunter2' (see vault save --help)")
            expectUsage(
                try await run(VaultProcess.vaultPath, ["agent", "-check"], env),
                "unknown option '-check'; did you mean '--check'? (see vault agent --help)")
            expectUsage(
                try await run(VaultProcess.vaultPath, ["list", "-passphrase-file", "x"], env),
                "unknown option '-passphrase-file'; did you mean '--passphrase-file'? (see vault list --help)")
            expectUsage(
                try await run(Self.vaultAuthPath, ["status", "-etcd-insecure-http"], env),
                "unknown option '-etcd-insecure-http'; did you mean '--etcd-insecure-http'? (see vault status --help)")
            // Before the command too (attack review 58, second pass).
            expectUsage(
                try await run(VaultProcess.vaultPath, ["-check", "agent"], env),
                "unknown option '-check' before the command; options go after it: vault agent -check (see vault agent --help)")
            // Nothing was saved by the first; grouped short flags still work.
            #expect(try await run(VaultProcess.vaultPath, ["load", "h.example.com", "bob"], env).status == 1)
            #expect(try await run(VaultProcess.vaultPath, ["list", "-vv"], env).status == 0)
        }
    }

    @Test func aValueTypedIsCutInUsageErrorsAndOptionsGoAfterTheCommand() async throws {
        try await withVault { env in
            let value = "ghp_" + String(repeating: "Zx9", count: 30)
            let bad = try await run(VaultProcess.vaultPath, ["save", "--backend", value, "api", "x"], env, stdin: "s")
            #expect(bad.status == 2 && !bad.err.contains(value) && bad.err.contains(String(value.prefix(64)) + "…"), "\(bad.err)")
            // An apostrophe in the value, a server given twice, combining marks: cut all the same.
            for arguments in [
                ["list", "--backend", "x'" + value + value], ["load", value + value, "acct", "--server", "x"],
                ["list", "--backend", "a" + String(repeating: "\u{301}", count: 3000)],
            ] {
                let cut = try await run(VaultProcess.vaultPath, arguments, env)
                #expect(cut.status == 2 && cut.err.utf8.count < 400, "\(cut.err.prefix(300))")
            }
            let long = try await run(VaultProcess.vaultPath, ["list", "-" + String(repeating: "a", count: 5000)], env)
            #expect(long.status == 2 && long.err.utf8.count < 200, "\(long.err.prefix(300))")
            expectUsage(
                try await run(VaultProcess.vaultPath, ["-v", "list"], env),
                "unknown option '-v' before the command; options go after it: vault list -v (see vault list --help)")
            expectUsage(try await run(VaultProcess.vaultPath, ["help", "nonsense"], env), "unknown help topic 'nonsense' (see vault --help)")
            expectUsage(
                try await run(VaultProcess.vaultPath, ["help", "lgoin"], env), "unknown help topic 'lgoin'; did you mean 'login'? (see vault --help)")
            expectUsage(
                try await run(VaultProcess.vaultPath, ["help", "options", "x"], env), "too many arguments after 'help options' (see vault --help)")
            let topic = try await run(VaultProcess.vaultPath, ["help", "options", "-h"], env)
            #expect(topic.status == 0 && topic.out.hasPrefix("vault help options: "), "\(topic.out)")
            let root = try await run(VaultProcess.vaultPath, ["--help"], env)
            #expect(root.out.contains("vault help options"), "vault --help points at the shared options")
        }
    }

    @Test func everyStoreFlagStillWorks() async throws {
        try await withVault { env in
            let vault = VaultProcess.vaultPath
            let dir = env["HOME"]!
            let passphraseFile = "\(dir)/pass"
            _ = FileManager.default.createFile(
                atPath: passphraseFile, contents: Data("shape passphrase\n".utf8), attributes: [.posixPermissions: 0o600])
            var bare = env
            bare["VAULT_PASSPHRASE"] = nil
            bare["VAULT_BACKEND"] = nil
            let flags = [
                "--backend", "file", "--file", "\(dir)/other.db", "--passphrase-file", passphraseFile, "--no-key-cache", "--no-prompt",
                "--prompt-timeout", "5", "-v",
            ]
            let saved = try await run(vault, ["save", "h.example.com", "dan"] + flags, bare, stdin: "s")
            #expect(saved.status == 0, "\(saved.err)")
            #expect(try await run(vault, ["load", "h.example.com", "dan"] + flags, bare).out == "s")
            let backend = try await run(vault, ["backend", "--backend", "file", "--file", "\(dir)/other.db", "-v"], bare)
            #expect(backend.status == 0 && backend.out.contains("other.db"), "\(backend.err)")
            let lock = try await run(vault, ["lock", "--backend", "file", "--file", "\(dir)/other.db"], bare)
            #expect(lock.status == 0, "\(lock.err)")
        }
    }
}
