// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Crypto
import Foundation
import HTTPTypes
import VaultAuth
import VaultHTTPClient
import VaultStore

/// Issue 13 figures: Sign in with Apple's server half in process, against the reference
/// server's `/apple` endpoints. The code exchange (client secret, POST, RS256 ID-token
/// check, store) and a refresh (client secret, POST, ID-token check) are timed next to one
/// raw token POST (the floor), and the client secret's cost is shown made fresh and cached.
enum AppleSignInBench {
    static let rounds = 20

    static func run() async throws {
        let key = P256.Signing.PrivateKey()
        var configuration = AuthServerConfiguration(accessTokenLifetime: 600, refreshTokenLifetime: 600)
        configuration.appleClients = [
            AppleClient(clientID: "com.example.bench", teamID: "TEAMBENCH1", keyID: "KEYBENCH01", publicKeyPEM: key.publicKey.pemRepresentation)
        ]
        let server = try ReferenceAuthServer(configuration: configuration)
        let port = try await server.start()
        defer { Task { await server.stop() } }
        let base = "http://127.0.0.1:\(port)"
        let transport = AsyncHTTPTransport()
        defer { Task { await transport.shutdown() } }
        let apple = AppleSettings(teamID: "TEAMBENCH1", keyID: "KEYBENCH01", privateKey: Secret(key.pemRepresentation), baseURL: base + "/apple")
        let settings = LoginSettings.apple(serverURL: base, clientID: "com.example.bench", apple: apple)

        var signIns: [Double] = []
        var refreshes: [Double] = []
        for round in 0..<rounds {
            guard let code = server.mintAppleCode(AppleCodeRequest(sub: "001.bench.\(round)", email: "b@example.com", nonce: "n\(round)"))
            else { throw AuthError.configuration("the reference server minted no code") }
            let session = AuthSession(store: InMemoryStore(), server: base, account: "bench", transport: transport)
            var start = ContinuousClock.now
            let tokens = try await session.signInWithApple(
                code: Secret(code), settings: settings, profile: PendingProfile(name: "Bench User", email: "b@example.com"), nonce: "n\(round)")
            signIns.append(Measure.milliseconds(ContinuousClock.now - start))
            let provider = try session.oauthProvider(for: settings)
            start = ContinuousClock.now
            _ = try await provider.refresh(tokens)
            refreshes.append(Measure.milliseconds(ContinuousClock.now - start))
        }
        let floor = try await rawTokenPosts(url: base + "/apple/auth/token", transport: transport)

        var table = Table(
            "Sign in with Apple, server half (in-process, InMemoryStore, \(rounds) sign-ins)", columns: ["measure", "median", "p90"])
        table.add(
            "code exchange → client secret, RS256 ID token verified, profile + tokens stored", format(Measure.median(signIns)),
            format(Measure.percentile(signIns, 0.9)))
        table.add("refresh (tokens kept, new ID token verified)", format(Measure.median(refreshes)), format(Measure.percentile(refreshes, 0.9)))
        table.add("floor: one raw POST to /apple/auth/token (rejected grant)", format(Measure.median(floor)), format(Measure.percentile(floor, 0.9)))
        table.print()

        try await clientSecretCost(apple: apple)
    }

    /// One POST the server refuses cheaply (an unknown code, no client secret to check).
    static func rawTokenPosts(url: String, transport: AsyncHTTPTransport) async throws -> [Double] {
        var times: [Double] = []
        for _ in 0..<rounds {
            let request = HTTPRequest(method: .post, url: URL(string: url)!, headerFields: [.contentType: "application/x-www-form-urlencoded"])
            let body = Array("grant_type=authorization_code&client_id=com.example.bench&code=unknown".utf8)
            let start = ContinuousClock.now
            _ = try await transport.send(request, body: body, timeout: .seconds(10))
            times.append(Measure.milliseconds(ContinuousClock.now - start))
        }
        return times
    }

    /// ES256 signing of a fresh client secret, against the cached one every later call gets.
    static func clientSecretCost(apple: AppleSettings) async throws {
        let count = 2_000
        var start = ContinuousClock.now
        for _ in 0..<count { _ = try await AppleClientSecret(clientID: "com.example.bench", settings: apple).current() }
        let fresh = Measure.milliseconds(ContinuousClock.now - start) * 1000 / Double(count)
        let maker = AppleClientSecret(clientID: "com.example.bench", settings: apple)
        start = ContinuousClock.now
        for _ in 0..<count { _ = try await maker.current() }
        let cached = Measure.milliseconds(ContinuousClock.now - start) * 1000 / Double(count)
        var table = Table("Apple client secret (ES256 JWT, \(count) rounds)", columns: ["secret", "per call"])
        table.add("made fresh (PEM parsed, signed)", String(format: "%.1f µs", fresh))
        table.add("cached (until 300 s before exp)", String(format: "%.2f µs", cached))
        table.print()
    }
}
