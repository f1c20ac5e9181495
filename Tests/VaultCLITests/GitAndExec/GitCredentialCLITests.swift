// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// A git home for the credential-helper tests: the real `git` with
/// `credential.helper=vault` (so it runs the built `git-credential-vault`), the file
/// backend in a temporary directory, no terminal and no prompts.
struct GitFixture: Sendable {
    static let password = "git-pw-7c41-do-not-print"
    let dir: String
    var environment: [String: String]

    init(dir: String, fileBackend: Bool = true) {
        self.dir = dir
        var env =
            fileBackend
            ? VaultProcess.fileBackendEnvironment(home: dir, file: "\(dir)/vault/vault.db", passphrase: "git fixture passphrase")
            : VaultProcess.baseEnvironment(home: dir)
        env["PATH"] = Self.buildDirectory + ":/usr/bin:/bin"
        env["GIT_TERMINAL_PROMPT"] = "0"
        env["GIT_CONFIG_NOSYSTEM"] = "1"
        env["GIT_ASKPASS"] = "/bin/false"
        env["SSH_ASKPASS"] = "/bin/false"
        if !fileBackend { env["VAULT_FILE"] = "\(dir)/must-not-exist/vault.db" }
        environment = env
    }

    /// The directory of the built `vault` and `git-credential-vault`.
    static var buildDirectory: String { URL(fileURLWithPath: VaultProcess.vaultPath).deletingLastPathComponent().path }
    static var helperPath: String { buildDirectory + "/git-credential-vault" }

    /// `git -c credential.helper=vault ARGS` (further `helpers` after it), with `stdin`.
    func git(
        _ arguments: [String], stdin: String? = nil, helpers: [String] = ["vault"], env extra: [String: String] = [:]
    )
        async throws -> ProcessResult
    {
        let configuration = ["-c", "credential.helper="] + helpers.flatMap { ["-c", "credential.helper=\($0)"] }
        return try await ChildProcess.runAsync(
            "/usr/bin/git", configuration + arguments, environment: environment.merging(extra) { $1 }, stdin: stdin.map { Data($0.utf8) })
    }

    /// `git-credential-vault OPERATION` with raw `stdin`.
    func helper(_ operation: String, stdin: Data, env extra: [String: String] = [:]) async throws -> ProcessResult {
        try await ChildProcess.runAsync(Self.helperPath, [operation], environment: environment.merging(extra) { $1 }, stdin: stdin)
    }

    func helper(_ operation: String, _ lines: String...) async throws -> ProcessResult {
        try await helper(operation, stdin: Data((lines.joined(separator: "\n") + "\n\n").utf8))
    }

    func vault(_ arguments: [String], stdin: String? = nil) async throws -> ProcessResult {
        try await VaultProcess.vaultAsync(arguments, environment: environment, stdin: stdin.map { Data($0.utf8) })
    }

    /// The `key=value` lines of a `git credential fill` answer.
    static func fields(_ output: String) -> [String: String] {
        Dictionary(
            output.split(separator: "\n").compactMap { line in
                line.firstIndex(of: "=").map { (String(line[..<$0]), String(line[line.index(after: $0)...])) }
            }
        ) { $1 }
    }
}

@Suite("git-credential-vault with the real git (file backend)", .offThePool)
struct GitCredentialCLITests {
    @Test("approve stores under the URL and user; fill finds it (with and without the user); reject erases only that item")
    func approveFillReject() async throws {
        try await withTemporaryDirectory("vault-git") { dir in
            let git = GitFixture(dir: dir)
            let approve = try await git.git(
                ["credential", "approve"],
                stdin: "protocol=https\nhost=git.example.com:8443\nusername=alice\npassword=\(GitFixture.password)\n\n")
            #expect(approve.status == 0, "\(approve.err)")
            let load = try await git.vault(["load", "--server", "https://git.example.com:8443", "--account", "alice"])
            #expect(load.status == 0 && load.out == GitFixture.password, "the item vault save would name: \(load.err)")

            // Neighbours: another user on the same host, the same user on another port, protocol or path.
            for (server, account) in [
                ("https://git.example.com:8443", "bob"), ("https://git.example.com", "alice"), ("http://git.example.com:8443", "alice"),
                ("https://git.example.com:8443/team/repo.git", "alice"),
            ] {
                let save = try await git.vault(["save", "--server", server, "--account", account], stdin: "neighbour-\(account)")
                #expect(save.status == 0, "\(save.err)")
            }

            let fill = try await git.git(["credential", "fill"], stdin: "protocol=https\nhost=git.example.com:8443\nusername=alice\n\n")
            #expect(fill.status == 0, "\(fill.err)")
            #expect(GitFixture.fields(fill.out)["password"] == GitFixture.password, "\(fill.out)")
            #expect(!fill.err.contains(GitFixture.password))

            // Without a user and two users on that host: nothing (git's prompt is off: it fails).
            let ambiguous = try await git.git(["credential", "fill"], stdin: "protocol=https\nhost=git.example.com:8443\n\n")
            #expect(ambiguous.status != 0 && !ambiguous.out.contains("password="), "\(ambiguous.out)")
            // With exactly one user on the host: that one.
            let single = try await git.git(["credential", "fill"], stdin: "protocol=http\nhost=git.example.com:8443\n\n")
            #expect(single.status == 0, "\(single.err)")
            #expect(GitFixture.fields(single.out)["username"] == "alice" && GitFixture.fields(single.out)["password"] == "neighbour-alice")

            // A reject of a password that is no longer the stored one removes nothing.
            let stale = try await git.git(
                ["credential", "reject"], stdin: "protocol=https\nhost=git.example.com:8443\nusername=alice\npassword=an-old-one\n\n")
            #expect(stale.status == 0, "\(stale.err)")
            #expect(try await git.vault(["load", "--server", "https://git.example.com:8443", "--account", "alice"]).status == 0)

            let reject = try await git.git(
                ["credential", "reject"],
                stdin: "protocol=https\nhost=git.example.com:8443\nusername=alice\npassword=\(GitFixture.password)\n\n")
            #expect(reject.status == 0, "\(reject.err)")
            let gone = try await git.vault(["load", "--server", "https://git.example.com:8443", "--account", "alice"])
            #expect(gone.status == 1, "rejected, so erased: \(gone.err)")
            let list = try await git.vault(["list"])
            for neighbour in [
                "https://git.example.com:8443\tbob", "https://git.example.com\talice", "http://git.example.com:8443\talice",
                "https://git.example.com:8443/team/repo.git\talice",
            ] {
                #expect(list.out.contains(neighbour), "neighbour \(neighbour) kept: \(list.out)")
            }
        }
    }

    @Test("credential.useHttpPath: the path is part of the item, and items of other paths are not returned")
    func useHTTPPath() async throws {
        try await withTemporaryDirectory("vault-git") { dir in
            let git = GitFixture(dir: dir)
            let approve = try await git.git(
                ["-c", "credential.useHttpPath=true", "credential", "approve"],
                stdin: "url=https://alice@git.example.com/team/one.git\npassword=\(GitFixture.password)\n\n")
            #expect(approve.status == 0, "\(approve.err)")
            let load = try await git.vault(["load", "--server", "https://git.example.com/team/one.git", "--account", "alice"])
            #expect(load.status == 0 && load.out == GitFixture.password, "\(load.err)")
            let other = try await git.git(
                ["-c", "credential.useHttpPath=true", "credential", "fill"], stdin: "url=https://alice@git.example.com/team/two.git\n\n")
            #expect(other.status != 0 && !other.out.contains(GitFixture.password), "another path's item is not this one's: \(other.out)")
            let same = try await git.git(
                ["-c", "credential.useHttpPath=true", "credential", "fill"], stdin: "url=https://alice@git.example.com/team/one.git\n\n")
            #expect(GitFixture.fields(same.out)["password"] == GitFixture.password, "\(same.err)")
        }
    }

    @Test("password_expiry_utc and oauth_refresh_token are kept; an expired password is not returned; unknown keys are ignored")
    func expiryAndRefreshToken() async throws {
        try await withTemporaryDirectory("vault-git") { dir in
            let git = GitFixture(dir: dir)
            let future = Int(Date().timeIntervalSince1970) + 3600
            let store = try await git.helper(
                "store", "capability[]=authtype", "protocol=https", "host=example.com", "username=alice", "password=\(GitFixture.password)",
                "password_expiry_utc=\(future)", "oauth_refresh_token=refresh-9d2", "wwwauth[]=Basic realm=x", "ephemeral=false")
            #expect(store.status == 0 && store.err.isEmpty, "\(store.err)")
            let get = try await git.helper("get", "capability[]=authtype", "protocol=https", "host=example.com", "username=alice")
            #expect(get.status == 0, "\(get.err)")
            #expect(
                get.out == "username=alice\npassword=\(GitFixture.password)\npassword_expiry_utc=\(future)\noauth_refresh_token=refresh-9d2\n",
                "\(get.out)")

            let past = Int(Date().timeIntervalSince1970) - 10
            _ = try await git.helper(
                "store", "protocol=https", "host=example.com", "username=alice", "password=\(GitFixture.password)", "password_expiry_utc=\(past)")
            let expired = try await git.helper("get", "protocol=https", "host=example.com", "username=alice")
            #expect(expired.status == 0 && expired.out.isEmpty, "an expired password is not returned: \(expired.out)")
        }
    }

    @Test("bad input: NUL, not UTF-8, a line without '=', more than 1 MiB: one line, exit 2, the item kept; unknown operations are ignored")
    func badInput() async throws {
        try await withTemporaryDirectory("vault-git") { dir in
            let git = GitFixture(dir: dir)
            _ = try await git.vault(["save", "--server", "https://example.com", "--account", "alice"], stdin: GitFixture.password)
            let bad: [Data] = [
                Data("protocol=https\nhost=example.com\nusername=alice\0x\n\n".utf8),
                Data("protocol=https\nhost=example.com\nusername=al".utf8) + Data([0xFF, 0xFE]) + Data("\n\n".utf8),
                Data("protocol=https\nhost=example.com\nusername alice\n\n".utf8),
            ]
            // 2 MiB through a shell pipeline, so the writer that the helper stops reading is `head`, not this process.
            let huge =
                "{ printf 'protocol=https\\nhost=example.com\\nusername='; head -c 2097152 /dev/zero | tr '\\0' a; } 2>/dev/null"
                + " | \"$0\" \"$1\""
            for input in bad + [nil] {
                for operation in ["get", "erase"] {
                    let result =
                        if let input {
                            try await git.helper(operation, stdin: input)
                        } else {
                            try await ChildProcess.runAsync("/bin/sh", ["-c", huge, GitFixture.helperPath, operation], environment: git.environment)
                        }
                    #expect(result.status == 2 && result.out.isEmpty, "\(operation): \(result.status) \(result.err)")
                    #expect(result.err.hasPrefix("git-credential-vault: ") && result.err.split(separator: "\n").count == 1, "\(result.err)")
                    #expect(!result.err.contains("alice"), "the line is not echoed: \(result.err)")
                }
            }
            let unknown = try await git.helper("frobnicate", "protocol=https", "host=example.com", "username=alice")
            #expect(unknown.status == 0 && unknown.out.isEmpty && unknown.err.isEmpty, "\(unknown.err)")
            // No protocol or host: nothing to look up, nothing stored or erased.
            let hostless = try await git.helper("erase", "username=alice", "password=\(GitFixture.password)")
            #expect(hostless.status == 0)
            let load = try await git.vault(["load", "--server", "https://example.com", "--account", "alice"])
            #expect(load.status == 0 && load.out == GitFixture.password, "nothing lost: \(load.err)")
        }
    }

    @Test("a host is taken literally (a % is not decoded again, bad ports name nothing), and CRLF lines are lines")
    func literalHostsAndCRLF() async throws {
        try await withTemporaryDirectory("vault-git") { dir in
            let git = GitFixture(dir: dir)
            _ = try await git.vault(["save", "--server", "https://example.com", "--account", "alice"], stdin: GitFixture.password)
            for host in ["ex%61mple.com", "example%2ecom", "example.com:99999", "example.com:-1", "example.com:0"] {
                let get = try await git.helper("get", "protocol=https", "host=\(host)", "username=alice")
                #expect(get.status == 0 && get.out.isEmpty, "\(host) is not example.com: \(get.out)")
                let store = try await git.helper("store", "protocol=https", "host=\(host)", "username=alice", "password=other")
                #expect(store.status == 2 && store.err.contains("not stored"), "\(host): \(store.err)")
            }
            // Through git: a host git decoded from %2561 arrives as ex%61mple.com.
            let fill = try await git.git(["credential", "fill"], stdin: "url=https://alice@ex%2561mple.com/\n\n")
            #expect(!fill.out.contains(GitFixture.password), "\(fill.out)")
            let load = try await git.vault(["load", "--server", "https://example.com", "--account", "alice"])
            #expect(load.out == GitFixture.password, "example.com's item is untouched")

            let crlf = try await git.helper(
                "store", stdin: Data("protocol=https\r\nhost=crlf.example.com\r\nusername=bob\r\npassword=pw-crlf\r\n\r\n".utf8))
            #expect(crlf.status == 0, "\(crlf.err)")
            let stored = try await git.vault(["load", "--server", "https://crlf.example.com", "--account", "bob"])
            #expect(stored.status == 0 && stored.out == "pw-crlf", "the CR is not part of the password: \(stored.err)")
        }
    }

    @Test("its help offers the store and keyring options it has, and no etcd options (the etcd backend is vault-auth's)")
    func helpOffersNoEtcdOptions() async throws {
        try await withTemporaryDirectory("vault-git") { dir in
            let git = GitFixture(dir: dir)
            let help = try await ChildProcess.runAsync(GitFixture.helperPath, ["--help"], environment: git.environment)
            #expect(help.status == 0, "\(help.err)")
            for present in ["--backend", "--passphrase-file", "--no-key-cache", "--prompt-timeout"] {
                #expect(help.out.contains(present), "\(present) missing: \(help.out)")
            }
            #expect(!help.out.contains("--etcd-") && !help.out.uppercased().contains("ETCD OPTIONS"), "\(help.out)")
            let refused = try await ChildProcess.runAsync(
                GitFixture.helperPath, ["--etcd-endpoints", "http://127.0.0.1:1", "get"], environment: git.environment)
            #expect(refused.status == 2 && refused.err.split(separator: "\n").count == 1, "\(refused.err)")
        }
    }

    @Test("no vault to open (no passphrase, no terminal; a wrong passphrase): get says why once, prints nothing, exits 0; git asks its next helper")
    func unavailableVaultFallsThrough() async throws {
        try await withTemporaryDirectory("vault-git") { dir in
            let git = GitFixture(dir: dir)
            _ = try await git.vault(["save", "--server", "https://example.com", "--account", "alice"], stdin: GitFixture.password)
            let next = "!f() { test \"$1\" = get && printf 'username=alice\\npassword=from-next-helper\\n'; }; f"
            for env in [["VAULT_PASSPHRASE": ""], ["VAULT_PASSPHRASE": "a wrong passphrase"]] {
                let direct = try await git.helper(
                    "get", stdin: Data("protocol=https\nhost=example.com\nusername=alice\n\n".utf8), env: env)
                #expect(direct.status == 0 && direct.out.isEmpty, "\(direct.out)")
                #expect(direct.err.split(separator: "\n").count == 1 && direct.err.contains("git will ask its next helper"), "\(direct.err)")
                let fill = try await git.git(
                    ["credential", "fill"], stdin: "protocol=https\nhost=example.com\nusername=alice\n\n", helpers: ["vault", next], env: env)
                #expect(fill.status == 0 && GitFixture.fields(fill.out)["password"] == "from-next-helper", "\(fill.out) \(fill.err)")
            }
        }
    }
}

/// A real clone over HTTP Basic authentication: `git http-backend` behind
/// `Tests/Helpers/git-http-server` on loopback, the password coming from vault.
@Suite("git clone with the password from git-credential-vault", .offThePool)
struct GitCloneCLITests {
    static let serverPath: String = {
        PackageRoot.appending("Tests/Helpers/git-http-server")
    }()

    @Test(
        "a stored password clones; a wrong one is rejected and erased, and the next clone asks the next helper, whose password vault keeps"
    )
    func cloneOverHTTPBasic() async throws {
        try await withTemporaryDirectory("vault-git-clone") { dir in
            let git = GitFixture(dir: dir)
            // A bare repository with one commit on main.
            for command in [
                "git init -q -b main --bare srv/repo.git", "git init -q -b main work",
                "git -C work -c user.email=t@example.com -c user.name=t commit -q --allow-empty -m init",
                "git -C work push -q ../srv/repo.git main",
            ] {
                let setup = try await ChildProcess.runAsync("/bin/sh", ["-c", "cd \"$0\" && \(command)", dir], environment: git.environment)
                try #require(setup.status == 0, "\(command): \(setup.err)")
            }
            try Data("\(GitFixture.password)\n".utf8).write(to: URL(fileURLWithPath: "\(dir)/password"))
            let server = try ChildProcess.start(
                "/usr/bin/python3", [Self.serverPath, "\(dir)/srv", "alice", "\(dir)/password", "\(dir)/server.log"],
                environment: git.environment)
            defer { server.kill() }
            let line = try #require(
                try await server.waitForOutput(timeout: 20) { $0.contains("\n") }, "the git server did not start")
            let base = try #require(line.split(separator: "\n").first.map { String($0.dropFirst("listening on ".count)) })

            let save = try await git.vault(["save", "--server", base, "--account", "alice"], stdin: GitFixture.password)
            #expect(save.status == 0, "\(save.err)")
            let clone = try await git.git(["clone", "-q", "\(base)/repo.git", "\(dir)/one"], stdin: "")
            #expect(clone.status == 0, "\(clone.err)")
            #expect(FileManager.default.fileExists(atPath: "\(dir)/one/.git"))
            #expect(!clone.err.contains(GitFixture.password))
            let log = try String(contentsOfFile: "\(dir)/server.log", encoding: .utf8)
            #expect(log.contains("ok alice") && !log.contains("denied"), "\(log)")

            // A wrong stored password: git is refused, rejects it, and vault erases it.
            _ = try await git.vault(["save", "--server", base, "--account", "alice"], stdin: "a-wrong-password")
            let next = "!f() { test \"$1\" = get && printf 'username=alice\\npassword=\(GitFixture.password)\\n'; }; f"
            let refused = try await git.git(["clone", "-q", "\(base)/repo.git", "\(dir)/two"], stdin: "", helpers: ["vault", next])
            #expect(refused.status != 0 && refused.err.contains("Authentication failed"), "\(refused.err)")
            let erased = try await git.vault(["load", "--server", base, "--account", "alice"])
            #expect(erased.status == 1, "the rejected password was erased: \(erased.out)")

            // Next time vault has nothing, git asks the next helper, and vault keeps what worked.
            let retry = try await git.git(["clone", "-q", "\(base)/repo.git", "\(dir)/three"], stdin: "", helpers: ["vault", next])
            #expect(retry.status == 0, "\(retry.err)")
            let kept = try await git.vault(["load", "--server", base, "--account", "alice"])
            #expect(kept.status == 0 && kept.out == GitFixture.password, "vault stored the approved password: \(kept.err)")
        }
    }
}
