// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import HTTPTypes
import Testing
import VaultHTTPClient
import VaultStore
import VaultTestSupport
import VaultTesting

@testable import VaultAuth

/// The refresh token's expiry as providers state it: `refresh_expires_in` of an OAuth token
/// response (Keycloak's field; the reference server's `--refresh-idle-ttl`), and the
/// reference API's `refreshTokenExpire`, which the idle timeout shortens.
@Suite("Refresh-token expiry from token responses", .offThePool)
struct RefreshExpiresInTests {
    static let client = CredentialPair(name: "vault-cli", secret: "client-secret-77")

    /// Runs `body` against an in-process reference server with `idle` as its refresh idle
    /// timeout (60 s absolute refresh lifetime), with a transport shut down afterwards.
    private func withServer<T>(
        idle: Double?, _ body: (_ baseURL: URL, _ transport: AsyncHTTPTransport) async throws -> T
    ) async throws -> T {
        let configuration = AuthServerConfiguration(
            accessTokenLifetime: 60, refreshTokenLifetime: 60, users: [CredentialPair(name: testUser, secret: testPassword)],
            clients: [Self.client], refreshTokenIdleLifetime: idle)
        return try await withReferenceServer(configuration) { running in
            let transport = AsyncHTTPTransport()
            let result: Result<T, any Error>
            do {
                result = .success(try await body(try #require(URL(string: running.url)), transport))
            } catch {
                result = .failure(error)
            }
            await transport.shutdown()
            return try result.get()
        }
    }

    private func oauthProvider(_ baseURL: URL, _ transport: any HTTPTransport) throws -> OAuth2Provider {
        try OAuth2Provider(
            settings: LoginSettings(
                provider: .oauth2, serverURL: baseURL.absoluteString, tokenURL: baseURL.appendingPathComponent("oauth/token").absoluteString,
                clientID: Self.client.name, clientSecret: Secret(Self.client.secret)),
            transport: transport, timeout: .seconds(10))
    }

    /// Expects `expiry` within `seconds` of the span `[before, after]`, one second of rounding allowed.
    private func expect(
        _ expiry: Date?, seconds: Double, between before: Date, and after: Date, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let expiry else {
            Issue.record("no refresh-token expiry", sourceLocation: sourceLocation)
            return
        }
        let low = before.addingTimeInterval(seconds - 1.5)
        let high = after.addingTimeInterval(seconds + 1)
        #expect(expiry >= low && expiry <= high, "\(expiry) not in \(low)...\(high)", sourceLocation: sourceLocation)
    }

    @Test("OAuth2Provider keeps refresh_expires_in as refreshTokenExpiry, after login and after each refresh")
    func oauthStoresRefreshExpiry() async throws {
        try await withServer(idle: 20) { baseURL, transport in
            let provider = try oauthProvider(baseURL, transport)
            var before = Date()
            let tokens = try await provider.login(account: testUser, password: Secret(testPassword))
            expect(tokens.refreshTokenExpiry, seconds: 20, between: before, and: Date())
            try await Task.sleep(for: .milliseconds(1_100))
            before = Date()
            let refreshed = try await provider.refresh(tokens)
            #expect(refreshed.refreshToken != tokens.refreshToken)
            expect(refreshed.refreshTokenExpiry, seconds: 20, between: before, and: Date())
            #expect(try #require(refreshed.refreshTokenExpiry) > (try #require(tokens.refreshTokenExpiry)))
        }
        try await withServer(idle: nil) { baseURL, transport in
            let provider = try oauthProvider(baseURL, transport)
            let tokens = try await provider.login(account: testUser, password: Secret(testPassword))
            #expect(tokens.refreshTokenExpiry == nil)
            #expect(try await provider.refresh(tokens).refreshTokenExpiry == nil)
        }
    }

    @Test("ReferenceAPIProvider's refreshTokenExpiry is the idle deadline when that comes first")
    func referenceAPIIdleExpiry() async throws {
        try await withServer(idle: 20) { baseURL, transport in
            let provider = ReferenceAPIProvider(baseURL: baseURL, transport: transport, timeout: .seconds(10))
            var before = Date()
            let tokens = try await provider.login(account: testUser, password: Secret(testPassword))
            expect(tokens.refreshTokenExpiry, seconds: 20, between: before, and: Date())
            before = Date()
            let refreshed = try await provider.refresh(tokens)
            expect(refreshed.refreshTokenExpiry, seconds: 20, between: before, and: Date())
        }
    }

    static func response(_ extra: String, refreshToken: Bool = true) -> Reply {
        let refresh = refreshToken ? #","refresh_token":"r2""# : ""
        return Reply(
            status: 200, body: Array(#"{"access_token":"a2","token_type":"Bearer","expires_in":60\#(refresh)\#(extra)}"#.utf8))
    }

    private func fakeProvider(_ body: @escaping @Sendable () -> Reply) throws -> OAuth2Provider {
        try OAuth2Provider(
            settings: LoginSettings(
                provider: .oauth2, serverURL: "https://api.example.test", tokenURL: "https://auth.example.test/token",
                clientID: "c", clientSecret: Secret("s")),
            transport: FakeTransport { _ in body() })
    }

    @Test("a refresh_expires_in that is zero, negative, not a number or absurd is ignored, not fatal")
    func unusableValuesIgnored() async throws {
        for value in ["0", "-5", #""soon""#, #""12abc""#, "1e300", "null", #""""#, "[]", "{}"] {
            let provider = try fakeProvider { Self.response(#","refresh_expires_in":\#(value)"#) }
            let tokens = try await provider.login(account: "ann", password: Secret("pw"))
            #expect(tokens.accessToken == Secret("a2") && tokens.refreshToken == Secret("r2"), "\(value)")
            #expect(tokens.refreshTokenExpiry == nil, "\(value): \(String(describing: tokens.refreshTokenExpiry))")
        }
        for value in ["120", #""120""#, "120.0"] {
            let before = Date()
            let tokens = try await fakeProvider { Self.response(#","refresh_expires_in":\#(value)"#) }
                .login(account: "ann", password: Secret("pw"))
            expect(tokens.refreshTokenExpiry, seconds: 120, between: before, and: Date())
        }
    }

    @Test("a refresh that keeps the refresh token takes a new refresh_expires_in, else keeps the earlier expiry")
    func unrotatedRefresh() async throws {
        let earlier = Date().addingTimeInterval(30)
        let previous = TokenSet(
            accessToken: Secret("a1"), accessTokenExpiry: Date(), refreshToken: Secret("r1"), refreshTokenExpiry: earlier,
            obtainedAt: Date())
        let before = Date()
        let renewed = try await fakeProvider { Self.response(#","refresh_expires_in":90"#, refreshToken: false) }.refresh(previous)
        #expect(renewed.refreshToken == Secret("r1"))
        expect(renewed.refreshTokenExpiry, seconds: 90, between: before, and: Date())
        let kept = try await fakeProvider { Self.response("", refreshToken: false) }.refresh(previous)
        #expect(kept.refreshToken == Secret("r1") && kept.refreshTokenExpiry == earlier)
        let ignored = try await fakeProvider { Self.response(#","refresh_expires_in":-1"#, refreshToken: false) }.refresh(previous)
        #expect(ignored.refreshTokenExpiry == earlier)
        let rotated = try await fakeProvider { Self.response("") }.refresh(previous)
        #expect(rotated.refreshToken == Secret("r2") && rotated.refreshTokenExpiry == nil)
    }
}
