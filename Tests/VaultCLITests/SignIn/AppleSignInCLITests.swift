// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Crypto
import Foundation
import Testing
import VaultTestSupport

/// `vault login --provider apple` against the reference server's `/apple` endpoints, with a
/// P-256 key made here; the app's half (the code) is minted by the server's test control.
struct AppleFixture: Sendable {
    static let client = "com.example.app"
    static let team = "TEAM123456"
    static let keyID = "KEY7654321"
    let auth: AuthFixture
    let keyPath: String
    let keyPEM: String
    var url: String { auth.url }
    var server: ReferenceAuthServer { auth.server }

    /// A code for `sub`, as Apple would give the app.
    func code(
        sub: String = "alice", email: String? = "alice@privaterelay.appleid.com", nonce: String? = nil, strings: Bool = false
    )
        throws -> String
    {
        try #require(
            server.mintAppleCode(
                AppleCodeRequest(
                    sub: sub, email: email, isPrivateEmail: true, emailVerified: true, nonce: nonce, claimsAsStrings: strings)))
    }

    func login(code: String, extra: [String] = [], keyFile: String? = nil) async throws -> ProcessResult {
        try await auth.vault(
            [
                "login", "--server", url, "--account", "alice", "--provider", "apple", "--client-id", Self.client, "--team-id",
                Self.team, "--key-id", Self.keyID, "--private-key-file", keyFile ?? keyPath, "--apple-url", "\(url)/apple",
            ] + extra, stdin: code)
    }

    func whoami() async throws -> ProcessResult {
        try await auth.vault(["whoami", "--server", url, "--account", "alice"])
    }

    /// Nothing secret in what a process printed: no code, key, client secret or token.
    func expectNoSecrets(_ result: ProcessResult, code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for text in [result.out, result.err] {
            #expect(!text.contains(code), "the code was printed", sourceLocation: sourceLocation)
            #expect(!text.contains("PRIVATE KEY") && !containsJWT(text), "a key or a JWT was printed", sourceLocation: sourceLocation)
        }
    }
}

func withAppleFixture(accessTTL: Double = 60, _ body: (AppleFixture) async throws -> Void) async throws {
    let key = P256.Signing.PrivateKey()
    var configuration = AuthServerConfiguration(
        accessTokenLifetime: accessTTL, refreshTokenLifetime: 300,
        users: [CredentialPair(name: "alice", secret: AuthFixture.password)])
    configuration.testControls = true
    configuration.appleClients = [
        AppleClient(
            clientID: AppleFixture.client, teamID: AppleFixture.team, keyID: AppleFixture.keyID,
            publicKeyPEM: key.publicKey.pemRepresentation)
    ]
    try await withReferenceServer(configuration) { running in
        try await withTemporaryDirectory("vault-apple") { dir in
            let keyPath = "\(dir)/AuthKey_\(AppleFixture.keyID).p8"
            _ = FileManager.default.createFile(
                atPath: keyPath, contents: Data(key.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
            try await body(
                AppleFixture(
                    auth: AuthFixture(server: running.server, url: running.url, dir: dir), keyPath: keyPath,
                    keyPEM: key.pemRepresentation))
        }
    }
}

@Suite("vault login --provider apple: Sign in with Apple's server side", .offThePool)
struct AppleSignInCLITests {
    @Test("login, whoami, request, refresh that keeps the refresh token, logout that the server sees", arguments: [false, true])
    func fullSession(claimsAsStrings: Bool) async throws {
        try await withAppleFixture(accessTTL: 2) { fixture in
            let code = try fixture.code(nonce: "n-0451", strings: claimsAsStrings)
            let login = try await fixture.login(code: code, extra: ["--nonce", "n-0451", "--name", "Alice Example"])
            #expect(login.status == 0, "\(login.err)")
            #expect(login.err.contains("signed in: alice@privaterelay.appleid.com, a private relay address (sub alice)"), "\(login.err)")
            fixture.expectNoSecrets(login, code: code)
            #expect(fixture.server.stats.codeExchanges == 1)

            let whoami = try await fixture.whoami()
            #expect(whoami.status == 0, "\(whoami.err)")
            #expect(whoami.out.contains("private relay address: true\n") && whoami.out.contains("email verified: true\n"), "\(whoami.out)")
            #expect(whoami.out.contains("pending name (not yet registered): Alice Example\n"), "\(whoami.out)")
            #expect(whoami.out.contains("iss: \(fixture.url)/apple\n"), "\(whoami.out)")

            let first = try await fixture.auth.request()
            #expect(first.status == 0, "\(first.err)")
            try await Task.sleep(for: .milliseconds(2500))  // the access token expires
            let second = try await fixture.auth.request()
            #expect(second.status == 0, "\(second.err)")
            let refreshed = fixture.server.stats.refreshes
            #expect(refreshed >= 1, "the expired access token was refreshed")
            try await Task.sleep(for: .milliseconds(2500))
            let third = try await fixture.auth.request()
            #expect(third.status == 0, "the same refresh token works again (Apple's do not rotate): \(third.err)")
            #expect(fixture.server.stats.refreshes > refreshed, "refreshed again with the kept refresh token")
            fixture.expectNoSecrets(third, code: code)

            let logout = try await fixture.auth.vault(["logout", "--server", fixture.url, "--account", "alice"])
            #expect(logout.status == 0, "\(logout.err)")
            #expect(fixture.server.stats.revocations >= 1, "the server saw the revocation")
            let after = try await fixture.auth.request()
            #expect(after.status == 3, "\(after.err)")
        }
    }

    /// Apple asks that its refresh tokens be validated at most once a day; vault's part is
    /// to refresh no more often than the access token's lifetime requires. A 16 s token
    /// obtained after `start` is stale no earlier than `start` + 8 s (the leeway is at most
    /// half the lifetime), and one refreshed then no earlier than `start` + 16 s. So when a
    /// wave of concurrent processes has ended before `start` + 8 s there can have been no
    /// refresh, and before `start` + 16 s at most one, however slowly a loaded machine runs.
    @Test("concurrent requests refresh only once the token is stale: none in the first half-lifetime, one in the next")
    func refreshesOnlyAsTheLifetimeRequires() async throws {
        try await withAppleFixture(accessTTL: 16) { fixture in
            let start = ContinuousClock.now
            let login = try await fixture.login(code: try fixture.code())
            #expect(login.status == 0, "\(login.err)")
            var waves: [(end: Duration, refreshes: Int)] = []
            // Waves until 13 s have passed and a refresh has been seen (at most 90 s: a loaded
            // machine may need long for a few waves).
            while ContinuousClock.now - start < .seconds(13) || fixture.server.stats.refreshes == 0,
                ContinuousClock.now - start < .seconds(90), waves.count < 100
            {
                let results = try await fixture.auth.concurrentRequests(2)
                #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.err))")
                waves.append((ContinuousClock.now - start, fixture.server.stats.refreshes))
                try await Task.sleep(for: .milliseconds(250))
            }
            for wave in waves {
                let allowed = wave.end < .seconds(8) ? 0 : wave.end < .seconds(16) ? 1 : Int.max
                #expect(wave.refreshes <= allowed, "\(wave.refreshes) refreshes by \(wave.end): \(waves)")
            }
            #expect(fixture.server.stats.refreshes >= 1, "the stale token was refreshed: \(waves)")
        }
    }

    @Test("a reused code and an expired code: invalid_grant, exit 3, nothing stored")
    func badCodes() async throws {
        try await withAppleFixture { fixture in
            let code = try fixture.code()
            #expect(try await fixture.login(code: code).status == 0)
            let reused = try await fixture.login(code: code)
            #expect(reused.status == 3, "\(reused.err)")
            #expect(reused.err.contains("invalid_grant"), "\(reused.err)")
            fixture.expectNoSecrets(reused, code: code)
            let expired = try #require(
                fixture.server.mintAppleCode(AppleCodeRequest(sub: "alice", expiresIn: 0)))
            try await Task.sleep(for: .milliseconds(1100))
            let late = try await fixture.login(code: expired)
            #expect(late.status == 3 && late.err.contains("invalid_grant"), "\(late.err)")
        }
    }

    @Test("a client secret signed by another key, or under another team or key id: invalid_client, exit 3")
    func badClientSecret() async throws {
        try await withAppleFixture { fixture in
            let otherKey = "\(fixture.auth.dir)/other.p8"
            _ = FileManager.default.createFile(
                atPath: otherKey, contents: Data(P256.Signing.PrivateKey().pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
            for (extra, keyFile) in [([], otherKey), (["--team-id", "OTHERTEAM"], nil), (["--key-id", "OTHERKEY"], nil)] {
                let code = try fixture.code()
                var args = extra
                if let keyFile { args += ["--private-key-file", keyFile] }
                let result = try await fixture.login(code: code, extra: args)
                #expect(result.status == 3, "\(extra): \(result.err)")
                #expect(result.err.contains("invalid_client"), "\(result.err)")
                fixture.expectNoSecrets(result, code: code)
            }
        }
    }

    /// Only the app can bring a new code once Apple refuses the refresh token: vault says so
    /// (exit 3) and forgets the dead token, so a cron job's later runs do not offer it again.
    @Test("a refused refresh token is offered once: later requests exit 3 without calling the token endpoint")
    func deadRefreshTokenIsNotOfferedAgain() async throws {
        try await withAppleFixture(accessTTL: 1) { fixture in
            let login = try await fixture.login(code: try fixture.code())
            #expect(login.status == 0, "\(login.err)")
            #expect(fixture.server.revokeRefreshTokens(login: "apple:alice") ?? 0 >= 1, "the server revoked it")
            try await Task.sleep(for: .milliseconds(1100))
            let first = try await fixture.auth.request()
            #expect(first.status == 3 && first.err.contains("run vault login"), "\(first.err)")
            let offered = fixture.server.stats.failedRefreshes
            #expect(offered == 1, "the dead token was offered once: \(offered)")
            for _ in 0..<3 {
                let later = try await fixture.auth.request()
                #expect(later.status == 3 && later.err.split(separator: "\n").count == 1, "\(later.err)")
            }
            #expect(fixture.server.stats.failedRefreshes == offered, "not offered again")
            #expect(fixture.server.stats.refreshes == 0)
        }
    }

    /// Apple's refresh tokens do not rotate, so a refresh whose ID token fails a check loses
    /// nothing by failing: the expired access token is not replaced (exit 5, the server's
    /// fault), and once the provider sends good tokens again the kept refresh token works.
    @Test("a refresh whose ID token has a bad signature, audience or issuer fails (exit 5); the refresh token still works afterwards")
    func badIDTokenAtRefresh() async throws {
        try await withAppleFixture(accessTTL: 1) { fixture in
            let login = try await fixture.login(code: try fixture.code())
            #expect(login.status == 0, "\(login.err)")
            for fault in [IDTokenFault.badSignature, .wrongAudience, .wrongIssuer, .unpublishedKey] {
                fixture.server.setIDTokenFault(fault)
                try await Task.sleep(for: .milliseconds(1100))  // the access token expires
                let refused = try await fixture.auth.request()
                #expect(refused.status == 5, "\(fault): \(refused.status) \(refused.err)")
                #expect(refused.err.contains("the ID token that came with the refresh was refused"), "\(refused.err)")
                #expect(refused.err.split(separator: "\n").count == 1, "one line: \(refused.err)")
            }
            fixture.server.setIDTokenFault(.none)
            let after = try await fixture.auth.request()
            #expect(after.status == 0, "the kept refresh token works: \(after.err)")
        }
    }

    @Test("an ID token with the wrong aud, nonce or signature is refused: exit 3, no tokens stored")
    func badIDTokens() async throws {
        try await withAppleFixture { fixture in
            for fault in [IDTokenFault.wrongAudience, .wrongNonce, .badSignature] {
                fixture.server.setIDTokenFault(fault)
                let code = try fixture.code(nonce: "n-1")
                let result = try await fixture.login(code: code, extra: ["--nonce", "n-1"])
                #expect(result.status == 3, "\(fault): \(result.err)")
                #expect(result.err.contains("the ID token was refused"), "\(result.err)")
                #expect(try await fixture.auth.request().status != 0, "nothing usable was stored")
            }
        }
    }

    @Test("the pending name survives a server failure during the exchange and a later sign-in without a name")
    func pendingNameSurvives() async throws {
        try await withAppleFixture { fixture in
            fixture.server.faults.set(.status500, count: 1)
            let failed = try await fixture.login(code: try fixture.code(), extra: ["--name", "Alice Example", "--email", "a@example.com"])
            #expect(failed.status == 5, "\(failed.err)")
            let later = try await fixture.login(code: try fixture.code())
            #expect(later.status == 0, "\(later.err)")
            let whoami = try await fixture.whoami()
            #expect(whoami.out.contains("pending name (not yet registered): Alice Example\n"), "\(whoami.out)")
            #expect(whoami.out.contains("pending email (not yet registered): a@example.com\n"), "\(whoami.out)")
            // Another Apple user signing in to this account does not inherit it.
            let other = try await fixture.login(code: try fixture.code(sub: "001.bob", email: "bob@example.com"))
            #expect(other.status == 0, "\(other.err)")
            let afterOther = try await fixture.whoami()
            #expect(afterOther.out.contains("sub: 001.bob\n"), "\(afterOther.out)")
            #expect(!afterOther.out.contains("pending"), "alice's name is not bob's: \(afterOther.out)")
        }
    }

    @Test("bad input: no code, an unreadable key, a key that is not PEM, Apple options without --provider apple: one line, exit 2 or 3")
    func badInput() async throws {
        try await withAppleFixture { fixture in
            let empty = try await fixture.login(code: "")
            #expect(empty.status == 2 && !empty.err.isEmpty, "\(empty.err)")
            let missing = try await fixture.login(code: "c", keyFile: "\(fixture.auth.dir)/nope.p8")
            #expect(missing.status == 2 && missing.err.contains("cannot read the private key"), "\(missing.err)")
            let junk = "\(fixture.auth.dir)/junk.p8"
            _ = FileManager.default.createFile(
                atPath: junk, contents: Data("-----BEGIN PRIVATE KEY-----\nsecret-junk-77\n".utf8), attributes: [.posixPermissions: 0o600])
            let notPEM = try await fixture.login(code: "c", keyFile: junk)
            #expect(notPEM.status == 3 && notPEM.err.contains("P-256"), "\(notPEM.err)")
            #expect(!notPEM.err.contains("secret-junk-77"))
            let stray = try await fixture.auth.vault(["login", "--server", fixture.url, "--account", "alice", "--team-id", "T"], stdin: "x")
            #expect(stray.status == 2 && stray.err.contains("need --provider apple"), "\(stray.err)")
            for result in [empty, missing, notPEM, stray] {
                #expect(result.err.split(separator: "\n").count == 1, "one line: \(result.err)")
            }
        }
    }

    @Test(
        "a key file open to others, a FIFO, a key id that is not letters and digits, a query in --apple-url, a code that never ends: exit 2 at once")
    func keyFileAndInputBounds() async throws {
        try await withAppleFixture { fixture in
            let dir = fixture.auth.dir
            let open = "\(dir)/open.p8"
            _ = FileManager.default.createFile(atPath: open, contents: Data(fixture.keyPEM.utf8), attributes: [.posixPermissions: 0o644])
            let shared = try await fixture.login(code: try fixture.code(), keyFile: open)
            #expect(shared.status == 2 && shared.err.contains("open to other users (mode 644)"), "\(shared.err)")
            // A symbolic link to a private key is fine.
            try FileManager.default.createSymbolicLink(atPath: "\(dir)/link.p8", withDestinationPath: fixture.keyPath)
            let linked = try await fixture.login(code: try fixture.code(), keyFile: "\(dir)/link.p8")
            #expect(linked.status == 0, "\(linked.err)")

            #expect(mkfifo("\(dir)/fifo.p8", 0o600) == 0)
            // Refused, not waited on: a read of the FIFO would hang until the login's bound.
            let fifo = try await fixture.login(code: try fixture.code(), keyFile: "\(dir)/fifo.p8")
            #expect(fifo.status == 2 && fifo.err.contains("not a regular file"), "\(fifo.err)")

            for keyID in ["../AuthKey_X", "KEY/1", "KEY 1", ""] {
                let bad = try await fixture.auth.vault(
                    [
                        "login", "--server", fixture.url, "--account", "alice", "--provider", "apple", "--client-id", AppleFixture.client,
                        "--team-id", AppleFixture.team, "--key-id", keyID, "--apple-url", "\(fixture.url)/apple",
                    ], stdin: "code", env: ["CREDENTIALS_DIRECTORY": dir])
                #expect(bad.status == 2 && bad.err.contains("--key-id must be letters and digits"), "\(keyID): \(bad.err)")
            }
            for url in ["\(fixture.url)/apple?x=1", "\(fixture.url)/apple#f"] {
                let bad = try await fixture.login(code: "c", extra: ["--apple-url", url])
                #expect(bad.status == 2 && bad.err.contains("without a query or a fragment"), "\(bad.err)")
            }

            // A writer that never closes: the read ends at --timeout.
            let hanging = try await ChildProcess.runAsync(
                "/bin/sh",
                [
                    "-c", "{ printf code; sleep 30; } | \"$0\" \"$@\"", VaultProcess.vaultPath, "login", "--server", fixture.url, "--account",
                    "alice", "--provider", "apple", "--client-id", AppleFixture.client, "--team-id", AppleFixture.team, "--key-id",
                    AppleFixture.keyID, "--private-key-file", fixture.keyPath, "--apple-url", "\(fixture.url)/apple", "--timeout", "2",
                ], environment: fixture.auth.env, timeout: 60)
            #expect(hanging.status == 2 && hanging.err.contains("did not end within 2 s"), "\(hanging.err)")
        }
    }

    @Test("logout keeps the key and the pending profile (--forget-password forgets them) and never a password item it did not write")
    func logoutKeepsWhatItShould() async throws {
        try await withAppleFixture { fixture in
            let save = try await fixture.auth.vault(["save", "--server", fixture.url, "--account", "alice", "--label", "mine"], stdin: "not-apples")
            #expect(save.status == 0, "\(save.err)")
            let login = try await fixture.login(code: try fixture.code(), extra: ["--name", "Alice Example"])
            #expect(login.status == 0, "\(login.err)")
            let logout = try await fixture.auth.vault(["logout", "--server", fixture.url, "--account", "alice"])
            #expect(logout.status == 0, "\(logout.err)")
            // No key file given: the stored key signs the next sign-in.
            let again = try await fixture.auth.vault(
                [
                    "login", "--server", fixture.url, "--account", "alice", "--provider", "apple", "--client-id", AppleFixture.client,
                    "--team-id", AppleFixture.team, "--key-id", AppleFixture.keyID, "--apple-url", "\(fixture.url)/apple",
                ], stdin: try fixture.code())
            #expect(again.status == 0, "the key was kept: \(again.err)")
            #expect(try await fixture.whoami().out.contains("pending name (not yet registered): Alice Example"))

            let forget = try await fixture.auth.vault(["logout", "--server", fixture.url, "--account", "alice", "--forget-password"])
            #expect(forget.status == 0, "\(forget.err)")
            let list = try await fixture.auth.vault(["list"])
            #expect(list.out.contains("\(fixture.url)\talice\tmine"), "the password item vault save wrote is kept: \(list.out)")
            #expect(list.out.split(separator: "\n").count == 1, "the key and the tokens are gone: \(list.out)")
            let load = try await fixture.auth.vault(["load", "--server", fixture.url, "--account", "alice"])
            #expect(load.out == "not-apples")
        }
    }
}
