// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

@Suite("POST /oauth/token (RFC 6749)", .offThePool)
struct OAuthTokenEndpointTests {
    private let client = Fixture.client
    private let user = Fixture.user

    private var basic: (String, String) { (client.name, client.secret) }

    @Test("password grant with HTTP Basic: tokens accepted by /api/get_devs")
    func passwordGrantBasic() async throws {
        try await withServer(Fixture.configuration) { server, api in
            let reply = try await api.oauth(
                [("grant_type", "password"), ("username", user.name), ("password", user.secret), ("scope", "read write")],
                basic: basic)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.headers["cache-control"] == "no-store")
            let token = try reply.decode(OAuthTokenResponse.self)
            #expect(token.tokenType == "Bearer")
            #expect((59...60).contains(token.expiresIn))
            #expect(token.refreshToken != nil)
            #expect(token.scope == "read write")
            #expect(try await api.developers(token.accessToken).status == 200)
            #expect(server.stats.logins == 1)
            #expect(server.stats.oauthTokens == 1)
        }
    }

    @Test("password grant with client_id/client_secret form fields")
    func passwordGrantForm() async throws {
        try await withServer(Fixture.configuration) { _, api in
            let reply = try await api.oauth([
                ("grant_type", "password"), ("username", user.name), ("password", user.secret),
                ("client_id", client.name), ("client_secret", client.secret),
            ])
            #expect(reply.status == 200, "\(reply.text)")
            let token = try reply.decode(OAuthTokenResponse.self)
            #expect(token.scope == nil)
            #expect(!reply.text.contains("\"scope\""))
        }
    }

    @Test("refresh_token grant rotates; the used token gives invalid_grant")
    func refreshGrant() async throws {
        try await withServer(Fixture.configuration) { server, api in
            let first = try await api.oauth(
                [("grant_type", "password"), ("username", user.name), ("password", user.secret), ("scope", "read")],
                basic: basic
            ).decode(OAuthTokenResponse.self)
            let refreshToken = try #require(first.refreshToken)
            let second = try await api.oauth([("grant_type", "refresh_token"), ("refresh_token", refreshToken)], basic: basic)
            #expect(second.status == 200, "\(second.text)")
            let rotated = try second.decode(OAuthTokenResponse.self)
            #expect(rotated.refreshToken != nil && rotated.refreshToken != refreshToken)
            #expect(rotated.scope == "read")
            #expect(try await api.developers(rotated.accessToken).status == 200)

            let reused = try await api.oauth([("grant_type", "refresh_token"), ("refresh_token", refreshToken)], basic: basic)
            expectOAuthError(reused, status: 400, error: .invalidGrant)
            #expect((try? reused.decode(OAuthError.self))?.description == AuthServerMessages.invalidRefreshToken)

            // Wider scope than granted.
            let wider = try await api.oauth(
                [("grant_type", "refresh_token"), ("refresh_token", rotated.refreshToken ?? ""), ("scope", "read admin")],
                basic: basic)
            expectOAuthError(wider, status: 400, error: .invalidScope)

            // An access token is not a refresh token.
            expectOAuthError(
                try await api.oauth([("grant_type", "refresh_token"), ("refresh_token", rotated.accessToken)], basic: basic),
                status: 400, error: .invalidGrant)
            expectOAuthError(try await api.oauth([("grant_type", "refresh_token")], basic: basic), status: 400, error: .invalidRequest)
            #expect(server.stats.refreshes == 1)
            #expect(server.stats.failedRefreshes >= 2)
        }
    }

    @Test("refresh tokens do not cross between /api and /oauth/token")
    func channelsAreSeparate() async throws {
        try await withServer(Fixture.configuration) { _, api in
            let apiUser = try await api.login(user.name, user.secret).decode(User.self)
            expectOAuthError(
                try await api.oauth([("grant_type", "refresh_token"), ("refresh_token", apiUser.refreshToken)], basic: basic),
                status: 400, error: .invalidGrant)
            let oauth = try await api.oauth(
                [("grant_type", "password"), ("username", user.name), ("password", user.secret)], basic: basic
            ).decode(OAuthTokenResponse.self)
            expectError(try await api.refresh(oauth.refreshToken), status: 401, message: AuthServerMessages.invalidRefreshToken)
            // Both were left alive by the refused attempts.
            #expect(try await api.refresh(apiUser.refreshToken).status == 200)
        }
    }

    @Test("client_credentials: an access token without refresh token, accepted by /api/get_devs")
    func clientCredentials() async throws {
        try await withServer(Fixture.configuration) { server, api in
            let reply = try await api.oauth([("grant_type", "client_credentials"), ("scope", "devs")], basic: basic)
            #expect(reply.status == 200, "\(reply.text)")
            let token = try reply.decode(OAuthTokenResponse.self)
            #expect(token.refreshToken == nil)
            #expect(!reply.text.contains("refresh_token"))
            #expect(token.scope == "devs")
            #expect(try await api.developers(token.accessToken).status == 200)
            expectError(try await api.refresh(token.accessToken), status: 401, message: AuthServerMessages.invalidRefreshToken)
            #expect(server.stats.oauthTokens == 1)
        }
    }

    @Test("invalid_client: wrong secret, unknown client, no authentication, malformed Basic")
    func invalidClient() async throws {
        try await withServer(Fixture.configuration) { server, api in
            let grant = [("grant_type", "client_credentials")]
            let wrongSecret = try await api.oauth(grant, basic: (client.name, "nope"))
            expectOAuthError(wrongSecret, status: 401, error: .invalidClient)
            #expect(wrongSecret.headers["www-authenticate"]?.hasPrefix("Basic") == true)
            expectOAuthError(try await api.oauth(grant, basic: ("stranger", client.secret)), status: 401, error: .invalidClient)
            expectOAuthError(try await api.oauth(grant), status: 401, error: .invalidClient)
            expectOAuthError(
                try await api.oauth(grant + [("client_id", client.name), ("client_secret", "nope")]),
                status: 401, error: .invalidClient)
            expectOAuthError(
                try await api.post(
                    "/oauth/token", body: "grant_type=client_credentials", contentType: "application/x-www-form-urlencoded",
                    headers: [("Authorization", "Basic !!!not-base64")]),
                status: 401, error: .invalidClient)
            // Password grant with a bad client never reaches the password check.
            expectOAuthError(
                try await api.oauth([("grant_type", "password"), ("username", user.name), ("password", user.secret)], basic: (client.name, "x")),
                status: 401, error: .invalidClient)
            #expect(server.stats.logins == 0)
            #expect(server.stats.oauthFailures == 6)
        }
    }

    @Test("invalid_grant for a wrong password")
    func invalidGrant() async throws {
        try await withServer(Fixture.configuration) { server, api in
            let reply = try await api.oauth(
                [("grant_type", "password"), ("username", user.name), ("password", "wrong")], basic: basic)
            expectOAuthError(reply, status: 400, error: .invalidGrant)
            #expect((try? reply.decode(OAuthError.self))?.description == AuthServerMessages.wrongLoginOrPassword)
            #expect(server.stats.failedLogins == 1)
        }
    }

    @Test("invalid_request and unsupported_grant_type")
    func invalidRequests() async throws {
        try await withServer(Fixture.configuration) { _, api in
            expectOAuthError(try await api.oauth([("grant_type", "implicit")], basic: basic), status: 400, error: .unsupportedGrantType)
            expectOAuthError(try await api.oauth([("scope", "x")], basic: basic), status: 400, error: .invalidRequest)
            expectOAuthError(
                try await api.oauth([("grant_type", "password"), ("username", user.name)], basic: basic),
                status: 400, error: .invalidRequest)
            expectOAuthError(
                try await api.oauth([("grant_type", "client_credentials"), ("grant_type", "password")], basic: basic),
                status: 400, error: .invalidRequest)
            expectOAuthError(
                try await api.oauth([("grant_type", "client_credentials")], basic: basic, contentType: "application/json"),
                status: 400, error: .invalidRequest)
            expectOAuthError(
                try await api.oauth([("grant_type", "client_credentials"), ("client_secret", client.secret)], basic: basic),
                status: 400, error: .invalidRequest)
            expectOAuthError(
                try await api.post("/oauth/token", body: "grant_type=%ZZ", contentType: "application/x-www-form-urlencoded"),
                status: 400, error: .invalidRequest)
        }
    }

    @Test("refresh faults apply to the refresh_token grant and keep the token alive")
    func refreshFaults() async throws {
        try await withServer(Fixture.configuration) { server, api in
            let token = try await api.oauth(
                [("grant_type", "password"), ("username", user.name), ("password", user.secret)], basic: basic
            ).decode(OAuthTokenResponse.self)
            let refresh = [("grant_type", "refresh_token"), ("refresh_token", token.refreshToken ?? "")]
            server.faults.set(.status500, count: 1)
            expectOAuthError(try await api.oauth(refresh, basic: basic), status: 500, error: .serverError)
            server.faults.set(.garbage, count: 1)
            let garbage = try await api.oauth(refresh, basic: basic)
            #expect(garbage.status == 200)
            #expect((try? garbage.decode(OAuthTokenResponse.self)) == nil)
            #expect(try await api.oauth(refresh, basic: basic).status == 200)
            #expect(server.stats.faultedRefreshes == 2)
        }
    }
}
