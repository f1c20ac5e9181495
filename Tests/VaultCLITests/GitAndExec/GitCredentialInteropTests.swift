// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// `git-credential-vault` and git's own `git-credential-libsecret` on the same Secret
/// Service: what one stores, the other fills, and neither erases the other's neighbours.
/// The libsecret helper is built here from the source Debian's `git` ships.
@Suite(.needsKeyring, .offThePool)
struct GitCredentialInteropTests {
    static let libsecretSource = "/usr/share/doc/git/contrib/credential/libsecret/git-credential-libsecret.c"

    /// Builds git's libsecret helper into `dir` with `cc` and `pkg-config libsecret-1`.
    static func buildLibsecretHelper(in dir: String) async throws -> String {
        let output = "\(dir)/git-credential-libsecret"
        let build = try await ChildProcess.runAsync(
            "/bin/sh", ["-c", "cc -o \"$1\" \"$2\" $(pkg-config --cflags --libs glib-2.0 libsecret-1)", "sh", output, libsecretSource],
            environment: ["PATH": "/usr/bin:/bin"], timeout: 120)
        try #require(build.status == 0, "building git-credential-libsecret: \(build.err)")
        return output
    }

    /// The `attribute.K = V` lines of the items `secret-tool search --all` finds for `attributes`.
    static func attributeLines(_ git: GitFixture, _ attributes: [String]) async throws -> [Set<Substring>] {
        let search = try await ChildProcess.runAsync(
            "/usr/bin/secret-tool", ["search", "--all"] + attributes, environment: git.environment, timeout: 30)
        let output = search.out + search.err
        return output.components(separatedBy: "[/").dropFirst().map { item in
            KeyringTestEnvironment.attributeLines(item).filter { $0.hasPrefix("attribute.") }
        }
    }

    @Test("what git-credential-libsecret stores, vault fills and loads; what vault stores, the libsecret helper fills; erase spares neighbours")
    func bothWays() async throws {
        try KeyringTestEnvironment.require()
        try await withTemporaryDirectory("vault-git-ss") { dir in
            let git = GitFixture(dir: dir, fileBackend: false)
            let libsecret = try await Self.buildLibsecretHelper(in: dir)
            let host = "git-\(getpid())-\(UUID().uuidString.prefix(8).lowercased()).example.com"

            // git's helper stores two users on host:8443 (and, for the neighbour rule, vault saves
            // alice on the port-less host afterwards: git's helper would replace the first item).
            for (authority, user) in [("\(host):8443", "alice"), ("\(host):8443", "bob")] {
                let approve = try await git.git(
                    ["credential", "approve"], stdin: "protocol=https\nhost=\(authority)\nusername=\(user)\npassword=libsecret-\(user)\n\n",
                    helpers: [libsecret])
                #expect(approve.status == 0 && approve.err.isEmpty, "\(approve.err)")
            }
            let neighbour = try await git.vault(["save", "--server", "https://\(host)", "--account", "alice"], stdin: "libsecret-alice")
            #expect(neighbour.status == 0, "\(neighbour.err)")
            let items = try await Self.attributeLines(git, ["server", host, "user", "alice", "port", "8443"])
            #expect(
                items == [["attribute.user = alice", "attribute.protocol = https", "attribute.server = \(host)", "attribute.port = 8443"]],
                "git's attributes: \(items)")

            let fill = try await git.git(["credential", "fill"], stdin: "protocol=https\nhost=\(host):8443\nusername=alice\n\n")
            #expect(fill.status == 0 && GitFixture.fields(fill.out)["password"] == "libsecret-alice", "\(fill.out) \(fill.err)")
            let load = try await git.vault(["load", "--server", "https://\(host):8443", "--account", "bob"])
            #expect(load.status == 0 && load.out == "libsecret-bob", "\(load.err)")

            // vault stores; git's helper fills it, and the attributes are git's.
            let approve = try await git.git(
                ["credential", "approve"], stdin: "protocol=https\nhost=\(host):9443\nusername=carol\npassword=\(GitFixture.password)\n\n")
            #expect(approve.status == 0, "\(approve.err)")
            let theirs = try await git.git(
                ["credential", "fill"], stdin: "protocol=https\nhost=\(host):9443\nusername=carol\n\n", helpers: [libsecret])
            #expect(theirs.status == 0 && GitFixture.fields(theirs.out)["password"] == GitFixture.password, "\(theirs.out) \(theirs.err)")
            let written = try await Self.attributeLines(git, ["server", host, "user", "carol"])
            #expect(
                written == [["attribute.user = carol", "attribute.protocol = https", "attribute.server = \(host)", "attribute.port = 9443"]],
                "\(written)")

            // vault erases git's alice@host:8443 item; bob there and alice on the port-less host stay.
            let reject = try await git.git(
                ["credential", "reject"], stdin: "protocol=https\nhost=\(host):8443\nusername=alice\npassword=libsecret-alice\n\n")
            #expect(reject.status == 0, "\(reject.err)")
            let erased = try await git.git(
                ["credential", "fill"], stdin: "protocol=https\nhost=\(host):8443\nusername=alice\n\n", helpers: [libsecret])
            #expect(!erased.out.contains("password=libsecret-alice"), "erased: \(erased.out)")
            for (authority, user) in [("\(host):8443", "bob"), (host, "alice")] {
                let kept = try await git.git(
                    ["credential", "fill"], stdin: "protocol=https\nhost=\(authority)\nusername=\(user)\n\n", helpers: [libsecret])
                #expect(GitFixture.fields(kept.out)["password"] == "libsecret-\(user)", "neighbour \(user)@\(authority) kept: \(kept.err)")
            }
            for server in ["https://\(host):8443", "https://\(host)", "https://\(host):9443"] {
                _ = try await git.vault(["remove", "--server", server, "--account", "alice"])
                _ = try await git.vault(["remove", "--server", server, "--account", "bob"])
                _ = try await git.vault(["remove", "--server", server, "--account", "carol"])
            }
        }
    }

    @Test("an item of later git's schema (org.git.Password, expiry and refresh-token lines in the secret) is filled and erased")
    func laterGitSchema() async throws {
        try KeyringTestEnvironment.require()
        try await withTemporaryDirectory("vault-git-ss") { dir in
            let git = GitFixture(dir: dir, fileBackend: false)
            let tool = "\(dir)/store-git-password"
            let source = PackageRoot.appending("Tests/Helpers/store-git-password.c")
            let build = try await ChildProcess.runAsync(
                "/bin/sh", ["-c", "cc -o \"$1\" \"$2\" $(pkg-config --cflags --libs glib-2.0 libsecret-1)", "sh", tool, source],
                environment: ["PATH": "/usr/bin:/bin"], timeout: 120)
            try #require(build.status == 0, "\(build.err)")
            let host = "git-\(getpid())-\(UUID().uuidString.prefix(8).lowercased()).example.com"
            let expiry = Int(Date().timeIntervalSince1970) + 3600
            let store = try await ChildProcess.runAsync(
                tool, ["https", host, "dana"], environment: git.environment,
                stdin: Data("\(GitFixture.password)\npassword_expiry_utc=\(expiry)\noauth_refresh_token=rt-51".utf8))
            try #require(store.status == 0, "\(store.err)")

            let get = try await git.helper("get", "protocol=https", "host=\(host)", "username=dana")
            #expect(
                get.out == "username=dana\npassword=\(GitFixture.password)\npassword_expiry_utc=\(expiry)\noauth_refresh_token=rt-51\n",
                "\(get.out) \(get.err)")
            let fill = try await git.git(["credential", "fill"], stdin: "protocol=https\nhost=\(host)\n\n")
            #expect(GitFixture.fields(fill.out)["password"] == GitFixture.password, "\(fill.err)")
            let reject = try await git.git(
                ["credential", "reject"], stdin: "protocol=https\nhost=\(host)\nusername=dana\npassword=\(GitFixture.password)\n\n")
            #expect(reject.status == 0, "\(reject.err)")
            let items = try await Self.attributeLines(git, ["server", host])
            #expect(items.isEmpty, "erased: \(items)")
        }
    }
}
