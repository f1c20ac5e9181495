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
            #expect(!text.contains("PRIVATE KEY") && !text.contains("eyJ"), "a key or a JWT was printed", sourceLocation: sourceLocation)
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

@Suite("vault login --provider apple: Sign in with Apple's server side")
struct AppleSignInCLITests {
    @Test("login, whoami, request, refresh that keeps the refresh token, logout that the server sees", arguments: [false, true])
    func fullSession(claimsAsStrings: Bool) async throws {
        try await withAppleFixture(accessTTL: 2) { fixture in
            let code = try fixture.code(nonce: "n-0451", strings: claimsAsStrings)
            let login = try await fixture.login(code: code, extra: ["--nonce", "n-0451", "--name", "Alice Example"])
            #expect(login.status == 0, "\(login.err)")
            #expect(login.err.contains("signed in: alice@privaterelay.appleid.com, a private relay address, (sub alice)"), "\(login.err)")
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
    /// to refresh no more often than the access token's lifetime requires. An 8 s token is
    /// stale after 4 s (the leeway is at most half the lifetime), and a token refreshed then
    /// is stale again after 8 s: waves of concurrent processes over 7 s need exactly one.
    @Test("concurrent requests over most of two lifetimes refresh exactly once, and only once the token is stale")
    func refreshesOnlyAsTheLifetimeRequires() async throws {
        try await withAppleFixture(accessTTL: 8) { fixture in
            let code = try fixture.code()
            let login = try await fixture.login(code: code)
            #expect(login.status == 0, "\(login.err)")
            let start = ContinuousClock.now
            var waves = 0
            var sawRefreshEarly = false
            while ContinuousClock.now - start < .seconds(7), waves < 40 {
                let results = try await fixture.auth.concurrentRequests(3)
                #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.err))")
                waves += 1
                if ContinuousClock.now - start < .seconds(3.5), fixture.server.stats.refreshes > 0 { sawRefreshEarly = true }
                try await Task.sleep(for: .milliseconds(250))
            }
            #expect(!sawRefreshEarly, "no refresh while the access token was fresh")
            #expect(waves >= 5, "the waves ran: \(waves)")
            #expect(fixture.server.stats.refreshes == 1, "one refresh, not \(fixture.server.stats.refreshes)")
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
            _ = FileManager.default.createFile(atPath: otherKey, contents: Data(P256.Signing.PrivateKey().pemRepresentation.utf8))
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
            _ = FileManager.default.createFile(atPath: junk, contents: Data("-----BEGIN PRIVATE KEY-----\nsecret-junk-77\n".utf8))
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
}
