// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

/// The refresh-token idle timeout (`refreshTokenIdleLifetime`, `--refresh-idle-ttl`), as
/// Keycloak's SSO Session Idle. As in ``ExpiryTests``, the assertions hold however slowly a
/// loaded machine runs: a step that landed past a deadline it had to beat is recorded as
/// "too slow", never taken for a server fault.
@Suite("Refresh-token idle timeout", .offThePool)
struct RefreshIdleTests {
    private let user = Fixture.user
    private var basic: (String, String) { (Fixture.client.name, Fixture.client.secret) }

    private func configuration(refreshTTL: Double = 60, idle: Double?) -> AuthServerConfiguration {
        var configuration = Fixture.configuration
        configuration.refreshTokenLifetime = refreshTTL
        configuration.refreshTokenIdleLifetime = idle
        return configuration
    }

    /// Sleeps until `deadline` (Unix ms) plus a margin; bounded to 10 s.
    private func sleep(until deadline: Int64, margin: Int64 = 200) async throws {
        let wait = min(max(deadline + margin - nowMillis(), 0), 10_000)
        try await Task.sleep(for: .milliseconds(wait))
    }

    private func passwordGrant(_ api: APIClient) async throws -> HTTPReply {
        try await api.oauth([("grant_type", "password"), ("username", user.name), ("password", user.secret)], basic: basic)
    }

    private func refreshGrant(_ api: APIClient, _ refreshToken: String) async throws -> HTTPReply {
        try await api.oauth([("grant_type", "refresh_token"), ("refresh_token", refreshToken)], basic: basic)
    }

    @Test("/api: each refresh rotates and restarts the idle clock; a token left idle past the window is refused as expired")
    func apiIdleWindow() async throws {
        try await withServer(configuration(idle: 3)) { server, api in
            let before = nowMillis()
            var tokens = try await api.login(user.name, user.secret).decode(TokensInfo.self)
            let after = nowMillis()
            // refreshTokenExpire is the idle deadline (earlier than the 60 s absolute expiry).
            #expect(tokens.refreshTokenExpire >= before + 3_000 - 1 && tokens.refreshTokenExpire <= after + 3_000 + 1)

            // Three refreshes 1.2 s apart: 3.6 s in all, longer than the window, and each
            // presented token is younger than it.
            var used: [String] = []
            for _ in 0..<3 {
                try await Task.sleep(for: .milliseconds(1_200))
                let deadline = tokens.refreshTokenExpire
                let sent = nowMillis()
                let reply = try await api.refresh(tokens.refreshToken)
                // A refusal counts only when the reply came before the deadline.
                guard reply.status == 200 || nowMillis() < deadline else {
                    Issue.record("the machine was too slow to refresh inside a 3 s idle window")
                    return
                }
                #expect(reply.status == 200, "\(reply.text)")
                used.append(tokens.refreshToken)
                tokens = try reply.decode(TokensInfo.self)
                #expect(tokens.refreshTokenExpire >= sent + 3_000 - 1 && tokens.refreshTokenExpire <= nowMillis() + 3_000 + 1)
            }
            #expect(server.stats.refreshes == 3 && server.stats.failedRefreshes == 0)
            // A rotated token stays dead (used), whatever its idle clock says.
            expectError(try await api.refresh(used[2]), status: 401, message: AuthServerMessages.invalidRefreshToken)

            try await sleep(until: tokens.refreshTokenExpire)
            expectError(try await api.refresh(tokens.refreshToken), status: 401, message: AuthServerMessages.refreshTokenExpired)
            // Still expired (not "invalid") when presented again.
            expectError(try await api.refresh(tokens.refreshToken), status: 401, message: AuthServerMessages.refreshTokenExpired)
            #expect(server.stats.failedRefreshes == 3)
            #expect(server.stats.refreshes == 3)
            // Logging in again works.
            #expect(try await api.login(user.name, user.secret).status == 200)
        }
    }

    @Test("/api: refreshTokenExpire is the earlier of the absolute expiry and the idle deadline")
    func earlierOfTheTwo() async throws {
        try await withServer(configuration(refreshTTL: 2, idle: 30)) { _, api in
            let before = nowMillis()
            let tokens = try await api.login(user.name, user.secret).decode(User.self)
            let after = nowMillis()
            #expect(tokens.refreshTokenExpire >= before + 2_000 - 1 && tokens.refreshTokenExpire <= after + 2_000 + 1)
        }
    }

    @Test("/oauth/token: refresh_expires_in only with an idle timeout, only with a refresh token; the earlier expiry counts")
    func refreshExpiresIn() async throws {
        try await withServer(configuration(idle: nil)) { _, api in
            let reply = try await passwordGrant(api)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(!reply.text.contains("refresh_expires_in"), "\(reply.text)")
            #expect(try reply.decode(OAuthTokenResponse.self).refreshExpiresIn == nil)
        }
        try await withServer(configuration(idle: 20)) { _, api in
            let first = try await passwordGrant(api)
            #expect(first.status == 200, "\(first.text)")
            let tokens = try first.decode(OAuthTokenResponse.self)
            #expect((18...20).contains(tokens.refreshExpiresIn ?? -1), "\(first.text)")
            let refreshed = try await refreshGrant(api, try #require(tokens.refreshToken))
            #expect(refreshed.status == 200, "\(refreshed.text)")
            let rotated = try refreshed.decode(OAuthTokenResponse.self)
            #expect(rotated.refreshToken != nil && rotated.refreshToken != tokens.refreshToken)
            #expect((18...20).contains(rotated.refreshExpiresIn ?? -1), "\(refreshed.text)")
            // client_credentials has no refresh token, so no refresh_expires_in.
            let service = try await api.oauth([("grant_type", "client_credentials")], basic: basic)
            #expect(service.status == 200, "\(service.text)")
            #expect(!service.text.contains("refresh_expires_in"), "\(service.text)")
        }
        try await withServer(configuration(refreshTTL: 10, idle: 100)) { _, api in
            let tokens = try await passwordGrant(api).decode(OAuthTokenResponse.self)
            #expect((8...10).contains(tokens.refreshExpiresIn ?? -1))
        }
    }

    @Test("/oauth/token: an idle refresh token is invalid_grant \"refresh token expired\", counted in failedRefreshes")
    func oauthIdleRefused() async throws {
        try await withServer(configuration(idle: 1)) { server, api in
            let tokens = try await passwordGrant(api).decode(OAuthTokenResponse.self)
            let refreshToken = try #require(tokens.refreshToken)
            try await Task.sleep(for: .milliseconds(1_500))
            let reply = try await refreshGrant(api, refreshToken)
            expectOAuthError(reply, status: 400, error: .invalidGrant)
            #expect(try reply.decode(OAuthError.self).description == AuthServerMessages.refreshTokenExpired)
            #expect(server.stats.failedRefreshes == 1 && server.stats.refreshes == 0)
        }
    }

    @Test("an idle lifetime that is zero, negative, NaN or infinite is refused")
    func validation() {
        for idle in [0, -1, Double.nan, Double.infinity] {
            #expect(throws: AuthServerConfigurationError.self, "\(idle)") {
                try ReferenceAuthServer(configuration: AuthServerConfiguration(refreshTokenIdleLifetime: idle))
            }
        }
        #expect(throws: Never.self) {
            try ReferenceAuthServer(configuration: AuthServerConfiguration(refreshTokenIdleLifetime: 0.5))
        }
    }
}
