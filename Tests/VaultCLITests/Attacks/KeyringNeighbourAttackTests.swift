// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

extension SynchronousProcessSuites {
    /// Attacks on the Secret Service backend through the shared keyring: other applications'
    /// items with the same user and host (secret-tool's, git's libsecret helper's, items in
    /// another collection), hostile labels, and secrets that are huge or not text. vault may
    /// read, change and delete only items of exactly its own shape; everything else must
    /// survive byte for byte. Real `vault` processes, the real GNOME Keyring of
    /// `Scripts/with-keyring`, real `secret-tool`, real git. Every command's exit status and
    /// output are checked, and no secret may appear on stderr.
    // One test at a time, as before the suites left the pool: several of them drive the
    // keyring hard (a dozen writers at once), and GNOME Keyring then answered the others'
    // first calls past vault's bound.
    @Suite(.serialized, .needsKeyring)
    final class KeyringNeighbourAttackTests {
        let dir: String
        let keyring: KeyringInspector
        /// A host no other test (or run) uses.
        let host: String
        let secret = "vault-own-secret-7c2e-do-not-print"

        init() throws {
            dir = try TemporaryDirectory.make(prefix: "vault-neighbours")
            host = "nb-\(getpid())-\(UUID().uuidString.prefix(8).lowercased()).example.com"
            var tools = VaultProcess.baseEnvironment(home: dir)
            tools["GIT_CONFIG_NOSYSTEM"] = "1"
            tools["GIT_TERMINAL_PROMPT"] = "0"
            keyring = KeyringInspector(environment: tools)
            guard tools["DBUS_SESSION_BUS_ADDRESS"] != nil else {
                Issue.record("no session bus: run the keyring tests with Scripts/test (or Scripts/with-keyring swift test)")
                throw CancellationError()
            }
        }

        deinit { TemporaryDirectory.remove(dir) }

        /// The Secret Service backend, forced; a file path that must stay unused.
        var env: [String: String] {
            var env = VaultProcess.baseEnvironment(home: dir)
            env["VAULT_BACKEND"] = "secret-service"
            env["VAULT_FILE"] = "\(dir)/must-not-exist/vault.db"
            return env
        }

        func vault(_ args: String..., stdin: Data? = nil) throws -> ProcessResult {
            try VaultProcess.vault(args, environment: env, stdin: stdin)
        }

        func expectClean(
            _ result: ProcessResult, status: Int32 = 0, stdout: String? = "", secrets: [String] = [],
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            #expect(result.status == status, "exit \(result.status): \(result.err)", sourceLocation: sourceLocation)
            if let stdout { #expect(result.out == stdout, sourceLocation: sourceLocation) }
            for secret in secrets + [self.secret] {
                #expect(!result.err.contains(secret), "a secret on stderr", sourceLocation: sourceLocation)
            }
        }

        /// vault's own items of `user` on `server` (the search attributes): those not planted.
        func ownItems(_ search: [String: String], besides planted: [KeyringInspector.Planted]) throws -> [[String: String]] {
            try keyring.items(matching: search).filter { path in !planted.contains { $0.path == path } }
                .map { try keyring.attributes(of: $0) }
        }

        // MARK: Neighbours of a bare host

        /// Every kind of neighbour of `user alice server HOST`: other protocols (the issue's
        /// imap/smtp/https+path items), a path as `object` and as `path`, a port, an authtype,
        /// a domain, another application's attribute, git's items for that host, and items of
        /// vault's very shape under another application's schema (found by the attack review).
        func neighbours(of user: String) -> [KeyringInspector.Neighbour] {
            [
                .secretTool(["user": user, "server": host, "protocol": "imap"], label: "imap", secret: "imap-secret"),
                .secretTool(["user": user, "server": host, "protocol": "smtp"], label: "smtp", secret: "smtp-secret"),
                .secretTool(["user": user, "server": host, "protocol": "https", "path": "/repo.git"], label: "https path", secret: "path-secret"),
                .secretTool(["user": user, "server": host, "protocol": "http", "object": "repo.git"], label: "http object", secret: "object-secret"),
                .secretTool(["user": user, "server": host, "port": "8080"], label: "port only", secret: "port-secret"),
                .secretTool(["user": user, "server": host, "authtype": "ntlm"], label: "ntlm", secret: "ntlm-secret"),
                .secretTool(["user": user, "server": host, "domain": "CORP"], label: "domain", secret: "domain-secret"),
                .secretTool(["user": user, "server": host, "application": "evolution"], label: "evolution", secret: "evo-secret"),
                .git(user: user, host: host, port: 8443, path: "repo.git", secret: "git-8443-secret"),
                .git(user: user, host: host, port: nil, path: "other.git", secret: "git-other-secret"),
                // Exactly vault's attributes, but another application's schema: not vault's.
                .secretTool(["user": user, "server": host, "xdg:schema": "org.other.App"], label: "other schema", secret: "schema-secret"),
                .secretTool(
                    ["user": user, "server": host, "protocol": "https", "xdg:schema": "org.other.App"],
                    label: "other schema https", secret: "schema-https-secret"),
            ]
        }

        @Test func saveUpdateAndRemoveOfABareHostLeaveEveryNeighbourByteForByte() throws {
            let planted = try keyring.plant(neighbours(of: "alice"))
            let search = ["user": "alice", "server": host]
            expectClean(try vault("load", "--server", host, "--account", "alice"), status: 1, stdout: "")

            expectClean(try vault("save", "--server", host, "--account", "alice", stdin: Data(secret.utf8)))
            try keyring.expectUntouched(planted, after: "vault save")
            #expect(try ownItems(search, besides: planted) == [search], "one item, user and server only")
            expectClean(try vault("load", "--server", host, "--account", "alice"), stdout: secret)
            expectClean(try vault("list", "--server", host), stdout: "\(host)\talice\tvault: alice@\(host)\n")

            expectClean(try vault("save", "--server", host, "--account", "alice", "--label", "again", stdin: Data("second-\(secret)".utf8)))
            try keyring.expectUntouched(planted, after: "vault save (update)")
            #expect(try ownItems(search, besides: planted) == [search])
            expectClean(try vault("load", "--server", host, "--account", "alice"), stdout: "second-\(secret)", secrets: [secret])

            expectClean(try vault("remove", "--server", host, "--account", "alice"))
            try keyring.expectUntouched(planted, after: "vault remove")
            #expect(try ownItems(search, besides: planted).isEmpty)
            expectClean(try vault("load", "--server", host, "--account", "alice"), status: 1, stdout: "")
            expectClean(try vault("remove", "--server", host, "--account", "alice"))
            try keyring.expectUntouched(planted, after: "a second vault remove")
        }

        @Test func removingAKeyThatOnlyNeighboursHaveDeletesNothing() throws {
            let planted = try keyring.plant(neighbours(of: "bob"))
            expectClean(try vault("remove", "--server", host, "--account", "bob"))
            expectClean(try vault("load", "--server", host, "--account", "bob"), status: 1, stdout: "")
            expectClean(try vault("list", "--server", host), stdout: "")
            try keyring.expectUntouched(planted, after: "vault remove and load")
        }

        @Test func concurrentSavesOfOneKeyCollapseToOneItemAndSpareTheNeighbours() throws {
            let planted = try keyring.plant(neighbours(of: "jack").prefix(3).map { $0 })
            let secrets = (0..<6).map { "\(secret)-\($0)" }
            let running = try secrets.map { value in
                try ChildProcess.start(
                    VaultProcess.vaultPath, ["save", "--server", host, "--account", "jack"], environment: env, stdin: Data(value.utf8))
            }
            for process in running { expectClean(try process.finish(timeout: 60), secrets: secrets) }
            try keyring.expectUntouched(planted, after: "six concurrent saves")
            let loaded = try vault("load", "--server", host, "--account", "jack")
            expectClean(loaded, stdout: nil, secrets: secrets)
            #expect(secrets.contains(loaded.out), "one of the saved secrets")
            // Concurrent creations may leave duplicates of vault's own shape; the next save collapses them.
            expectClean(try vault("save", "--server", host, "--account", "jack", stdin: Data(secret.utf8)), secrets: secrets)
            #expect(try ownItems(["user": "jack", "server": host], besides: planted) == [["user": "jack", "server": host]])
            expectClean(try vault("remove", "--server", host, "--account", "jack"), secrets: secrets)
            try keyring.expectUntouched(planted, after: "save and remove after concurrent saves")
        }

        // MARK: URL servers and git

        @Test func aURLServerIsStoredAsGitsHelperStoresItAndGitFindsIt() throws {
            let server = "https://\(host):8443/path"
            let planted = try keyring.plant([
                .git(user: "carol", host: host, port: 8443, path: "other", secret: "git-other-path"),
                .git(user: "carol", host: host, port: 9443, path: "path", secret: "git-other-port"),
                .git(user: "carol", host: host, port: nil, path: "path", secret: "git-no-port"),
                .secretTool(
                    ["user": "carol", "server": host, "protocol": "http", "port": "8443", "object": "path"], label: "http", secret: "http-secret"),
            ])
            expectClean(try vault("save", "--server", server, "--account", "carol", stdin: Data(secret.utf8)))
            try keyring.expectUntouched(planted, after: "vault save of a URL")
            let shape = ["user": "carol", "server": host, "protocol": "https", "port": "8443", "object": "path"]
            #expect(try ownItems(["user": "carol", "server": host], besides: planted) == [shape])
            let lookup = try keyring.run("/usr/bin/secret-tool", ["lookup"] + shape.flatMap { [$0.key, $0.value] })
            expectClean(lookup, stdout: secret)
            expectClean(try vault("list", "--server", server), stdout: "\(server)\tcarol\tvault: carol@\(server)\n")

            if let helper = KeyringInspector.gitHelper {
                let fill = try keyring.run(
                    "/usr/bin/git",
                    ["-c", "credential.helper=", "-c", "credential.helper=\(helper)", "-c", "credential.useHttpPath=true", "credential", "fill"],
                    stdin: "url=https://carol@\(host):8443/path\n\n")
                #expect(fill.status == 0, "\(fill.err)")
                #expect(fill.out.contains("password=\(secret)\n"), "git finds vault's item")
            }
            expectClean(try vault("remove", "--server", server, "--account", "carol"))
            try keyring.expectUntouched(planted, after: "vault remove of a URL")
            #expect(try ownItems(["user": "carol", "server": host], besides: planted).isEmpty)
        }

        @Test func vaultLoadsWhatGitsHelperStoredForThatURL() throws {
            let planted = try keyring.plant([.git(user: "dave", host: host, port: 8443, path: "repo.git", secret: "git-stored-secret")])
            let server = "https://\(host):8443/repo.git"
            expectClean(try vault("load", "--server", server, "--account", "dave"), stdout: "git-stored-secret")
            expectClean(try vault("list", "--server", server), stdout: "\(server)\tdave\tGit: \(server)\n")
            // Another port, path or scheme is another key: not found, nothing touched.
            for other in ["https://\(host)/repo.git", "https://\(host):8443", "http://\(host):8443/repo.git", host] {
                expectClean(try vault("load", "--server", other, "--account", "dave"), status: 1, stdout: "")
                expectClean(try vault("remove", "--server", other, "--account", "dave"))
            }
            try keyring.expectUntouched(planted, after: "loads and removes of other keys")
            // The same key: vault updates git's item in place (it is the same credential).
            expectClean(try vault("save", "--server", server, "--account", "dave", stdin: Data(secret.utf8)))
            #expect(try keyring.items(matching: ["user": "dave", "server": host]) == planted.map(\.path))
            expectClean(try vault("load", "--server", server, "--account", "dave"), stdout: secret)
            expectClean(try vault("remove", "--server", server, "--account", "dave"))
            #expect(try keyring.items(matching: ["user": "dave", "server": host]).isEmpty)
        }

        @Test func legacyItemsAreRewrittenAndOnlyExactOnesDeleted() throws {
            let server = "https://\(host):8443/path"
            // What vault wrote before (whole URL in server, protocol, port), and a near miss.
            let planted = try keyring.plant([
                .secretTool(["user": "erin", "server": server, "protocol": "https"], label: "near miss", secret: "near-miss-secret")
            ])
            let legacy = ["user": "erin", "server": server, "protocol": "https", "port": "8443"]
            let stored = try keyring.run(
                "/usr/bin/secret-tool", ["store", "--label=old vault"] + legacy.flatMap { [$0.key, $0.value] }, stdin: "old-secret")
            expectClean(stored)
            expectClean(try vault("load", "--server", server, "--account", "erin"), stdout: "old-secret")
            expectClean(try vault("list", "--server", server), stdout: "\(server)\terin\told vault\n")
            expectClean(try vault("save", "--server", server, "--account", "erin", stdin: Data(secret.utf8)))
            try keyring.expectUntouched(planted, after: "vault save over a legacy item")
            #expect(try keyring.items(matching: legacy).isEmpty, "the legacy item is gone")
            #expect(
                try ownItems(["user": "erin", "server": host], besides: planted) == [
                    ["user": "erin", "server": host, "protocol": "https", "port": "8443", "object": "path"]
                ])
            expectClean(try vault("list", "--server", server), stdout: "\(server)\terin\tvault: erin@\(server)\n")
            expectClean(try vault("remove", "--server", server, "--account", "erin"))
            try keyring.expectUntouched(planted, after: "vault remove")
        }

        // MARK: Another collection

        @Test(.disabled(if: KeyringTestEnvironment.isKeePassXC, "KeePassXC exposes one collection"))
        func anItemOfTheSameShapeInAnotherCollectionIsNeverTouched() throws {
            let stored = try keyring.run(
                "/usr/bin/secret-tool", ["store", "--collection=session", "--label=session item", "user", "frank", "server", host],
                stdin: "session-secret")
            expectClean(stored)
            let path = try #require(try keyring.items(matching: ["user": "frank", "server": host]).first)
            #expect(path.hasPrefix("/org/freedesktop/secrets/collection/session/"))
            let before = try keyring.snapshot(path)
            let properties = { [keyring] in try keyring.gdbus(path, "org.freedesktop.DBus.Properties.GetAll", ["org.freedesktop.Secret.Item"]).out }
            let propertiesBefore = try properties()

            expectClean(try vault("load", "--server", host, "--account", "frank"), status: 1, stdout: "")
            expectClean(try vault("list", "--server", host), stdout: "")
            expectClean(try vault("save", "--server", host, "--account", "frank", stdin: Data(secret.utf8)))
            #expect(try properties() == propertiesBefore)
            expectClean(try vault("load", "--server", host, "--account", "frank"), stdout: secret)
            expectClean(try vault("remove", "--server", host, "--account", "frank"))
            #expect(try keyring.snapshot(path) == before)
            #expect(try keyring.items(matching: ["user": "frank", "server": host]) == [path])
            _ = try keyring.gdbus(path, "org.freedesktop.Secret.Item.Delete", [])
        }

        // MARK: Login and logout

        @Test func loginAndLogoutLeaveNeighboursOnTheAuthServersHost() async throws {
            try await withAuthFixture { fixture in
                let port = try #require(fixture.url.split(separator: ":").last.map(String.init))
                // 127.0.0.1 is shared by every AuthFixture: the port and the unique object keep
                // these items apart from other tests'.
                let tag = UUID().uuidString.prefix(8).lowercased()
                let planted = try keyring.plant([
                    .secretTool(
                        ["user": "alice", "server": "127.0.0.1", "protocol": "http", "port": port, "object": "other-\(tag)"], label: "other path",
                        secret: "other-path-secret"),
                    .secretTool(
                        ["user": "alice", "server": "127.0.0.1", "protocol": "https", "port": port, "object": "tls-\(tag)"], label: "https",
                        secret: "https-secret"),
                    .secretTool(
                        ["user": "alice", "server": "127.0.0.1", "protocol": "http", "port": port, "authtype": "basic-\(tag)"], label: "authtype",
                        secret: "authtype-secret"),
                    // The whole URL in server (the old vault shape) plus an attribute of its own.
                    .secretTool(
                        ["user": "alice", "server": fixture.url, "protocol": "http", "port": port, "object": "old-\(tag)"], label: "whole URL",
                        secret: "whole-url-secret"),
                ])
                var env = self.env
                env["VAULT_FILE"] = nil
                let shape = ["user": "alice", "server": "127.0.0.1", "protocol": "http", "port": port]
                let secrets = [fixture.password] + planted.map(\.neighbour.secret)

                let login = try await fixture.vault(["login", "--server", fixture.url, "--account", "alice"], stdin: fixture.password, env: env)
                expectClean(login, stdout: nil, secrets: secrets)
                #expect(!login.out.contains(fixture.password))
                try keyring.expectUntouched(planted, after: "vault login")
                #expect(try ownItems(shape, besides: planted) == [shape], "the password item has exactly the URL's shape")
                let password = try await fixture.vault(["load", "--server", fixture.url, "--account", "alice"], env: env)
                expectClean(password, stdout: fixture.password, secrets: [fixture.password])

                let logout = try await fixture.vault(["logout", "--server", fixture.url, "--account", "alice"], env: env)
                expectClean(logout, stdout: nil, secrets: secrets)
                try keyring.expectUntouched(planted, after: "vault logout")
                #expect(try ownItems(shape, besides: planted) == [shape], "logout keeps the password")

                let forget = try await fixture.vault(["logout", "--server", fixture.url, "--account", "alice", "--forget-password"], env: env)
                expectClean(forget, stdout: nil, secrets: secrets)
                try keyring.expectUntouched(planted, after: "vault logout --forget-password")
                #expect(try ownItems(shape, besides: planted).isEmpty)
                for item in planted { _ = try keyring.gdbus(item.path, "org.freedesktop.Secret.Item.Delete", []) }
            }
        }

        // MARK: Hostile labels and secrets

        @Test func controlCharactersInLabelsBreakNothing() throws {
            let hostile = "\u{1B}[2J\u{1B}]0;pwned\u{07}\rhostile\u{1B}[0m"
            // A plain user+server item (vault may read it) with the hostile label, stored first:
            // secret-tool's store replaces every item that has all the new item's attributes.
            expectClean(
                try keyring.run("/usr/bin/secret-tool", ["store", "--label=\(hostile)", "user", "gina", "server", host], stdin: "plain-secret"))
            let planted = try keyring.plant([
                .secretTool(["user": "gina", "server": host, "protocol": "imap"], label: hostile, secret: "imap-secret")
            ])
            let listed = try vault("list", "--server", host)
            expectClean(listed, stdout: nil, secrets: ["plain-secret", "imap-secret"])
            let lines = listed.out.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 2 && lines[1].isEmpty, "one line: \(listed.out.debugDescription)")
            #expect(lines[0].hasPrefix("\(host)\tgina\t"))
            expectClean(try vault("load", "--server", host, "--account", "gina"), stdout: "plain-secret")
            expectClean(try vault("save", "--server", host, "--account", "gina", stdin: Data(secret.utf8)))
            // A save without --label keeps the item's label (hostile or not): the same line.
            expectClean(try vault("list", "--server", host), stdout: listed.out)
            expectClean(try vault("remove", "--server", host, "--account", "gina"))
            try keyring.expectUntouched(planted, after: "list, load, save and remove beside a hostile label")
        }

        @Test func aOneMebibyteSecretRoundTripsAndOneByteMoreIsRefused() throws {
            var generator = SystemRandomNumberGenerator()
            var big = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            big[big.count - 1] = 0x41  // no trailing newline to drop
            let planted = try keyring.plant(neighbours(of: "hank").prefix(2).map { $0 })
            let saved = try vault("save", "--server", host, "--account", "hank", stdin: Data(big))
            expectClean(saved)
            let loaded = try vault("load", "--server", host, "--account", "hank")
            #expect(loaded.status == 0, "\(loaded.err)")
            #expect(loaded.stdout == Data(big), "1 MiB back byte for byte (\(loaded.stdout.count) bytes)")
            #expect(loaded.err.isEmpty)

            let tooBig = try vault("save", "--server", host, "--account", "hank", stdin: Data(big + [0x42, 0x43]))
            expectClean(tooBig, status: 2, stdout: "")
            #expect(tooBig.err.contains("1 MiB") && tooBig.err.split(separator: "\n").count == 1, "\(tooBig.err)")
            #expect(try vault("load", "--server", host, "--account", "hank").stdout == Data(big), "the stored secret is unchanged")
            expectClean(try vault("remove", "--server", host, "--account", "hank"))
            try keyring.expectUntouched(planted, after: "1 MiB secrets")
        }

        @Test func secretsWithNULAndInvalidUTF8RoundTrip() throws {
            let binary: [UInt8] = [0x00, 0x01, 0xFF, 0xFE, 0xC3, 0x28, 0x00, 0x80, 0xED, 0xA0, 0x80, 0x7F, 0x00]
            expectClean(try vault("save", "--server", host, "--account", "ivy", stdin: Data(binary)))
            let loaded = try vault("load", "--server", host, "--account", "ivy")
            #expect(loaded.status == 0, "\(loaded.err)")
            #expect(loaded.stdout == Data(binary))
            #expect(loaded.err.isEmpty)
            expectClean(try vault("list", "--server", host), stdout: "\(host)\tivy\tvault: ivy@\(host)\n")
            expectClean(try vault("remove", "--server", host, "--account", "ivy"))
            expectClean(try vault("load", "--server", host, "--account", "ivy"), status: 1, stdout: "")
        }
    }
}
