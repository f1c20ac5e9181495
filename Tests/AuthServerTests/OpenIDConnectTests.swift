// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Crypto
import Foundation
import JWTKit
import Testing
import VaultTestSupport

/// The ID-token claims as a client reads them.
private struct IDClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var nonce: String?
    var email: String?
    var name: String?

    func verify(using algorithm: some JWTAlgorithm) throws {}
}

private enum OIDC {
    static let publicClient = "native-app"
    static let verifier = "verifier-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDEF"
    static var challenge: String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
    static let redirect = "http://127.0.0.1:49152/callback"

    static var configuration: AuthServerConfiguration {
        var configuration = Fixture.configuration
        configuration.publicClients = [publicClient]
        configuration.testControls = true
        configuration.deviceInterval = 0.3
        configuration.deviceSlowDownIncrement = 0.2
        return configuration
    }

    static func authorizePath(client: String = publicClient, redirect: String = redirect, method: String? = "S256") -> String {
        var query = [
            ("response_type", "code"), ("client_id", client), ("redirect_uri", redirect), ("state", "st&ate"),
            ("scope", "openid email"), ("nonce", "n-123"), ("code_challenge", challenge),
        ]
        if let method { query.append(("code_challenge_method", method)) }
        return "/oauth/authorize?" + query.map { "\($0.0)=\(APIClient(port: 0).formEncode($0.1))" }.joined(separator: "&")
    }

    /// The hidden fields of the page's form.
    static func hiddenFields(_ html: String) -> [(String, String)] {
        let pattern = #/<input type="hidden" name="([^"]*)" value="([^"]*)">/#
        return html.matches(of: pattern).map { (unescape(String($0.1)), unescape(String($0.2))) }
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// Loads the page, posts its form with these credentials and decision; the reply.
    static func submit(
        _ client: APIClient, path: String = authorizePath(), password: String = Fixture.user.secret, decision: String = "allow"
    )
        async throws -> HTTPReply
    {
        let page = try await client.get(path)
        #expect(page.status == 200, "\(page.text)")
        let fields = hiddenFields(page.text) + [("login", Fixture.user.name), ("password", password), ("decision", decision)]
        let body = fields.map { "\(client.formEncode($0.0))=\(client.formEncode($0.1))" }.joined(separator: "&")
        return try await client.post("/oauth/authorize", body: body, contentType: "application/x-www-form-urlencoded")
    }

    /// The query of a redirect's `Location`.
    static func query(_ reply: HTTPReply) -> [String: String] {
        let items = reply.headers["location"].flatMap { URLComponents(string: $0)?.queryItems } ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    static func exchange(_ client: APIClient, code: String, verifier: String = verifier) async throws -> HTTPReply {
        try await client.oauth([
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect), ("client_id", publicClient),
            ("code_verifier", verifier),
        ])
    }

    /// An allowed authorization's code.
    static func code(_ client: APIClient) async throws -> String {
        let reply = try await submit(client)
        #expect(reply.status == 302)
        return try #require(query(reply)["code"])
    }

    static func verify(_ idToken: String, client: APIClient) async throws -> IDClaims {
        let jwks = try await client.get("/oauth/jwks")
        let keys = try await JWTKeyCollection().add(jwksJSON: jwks.text)
        return try await keys.verify(idToken, as: IDClaims.self)
    }
}

@Suite("OpenID Connect: discovery, authorization code + PKCE, ID tokens", .offThePool)
struct OpenIDConnectTests {
    @Test("both metadata documents name the base URL as issuer and every endpoint; the issuer override names another")
    func discovery() async throws {
        try await withServer(OIDC.configuration) { server, client in
            let base = "http://127.0.0.1:\(client.port)"
            for path in ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"] {
                let metadata = try await client.get(path).decode(AuthServerMetadata.self)
                #expect(metadata.issuer == base)
                #expect(metadata.authorizationEndpoint == base + "/oauth/authorize")
                #expect(metadata.tokenEndpoint == base + "/oauth/token")
                #expect(metadata.deviceAuthorizationEndpoint == base + "/oauth/device_authorization")
                #expect(metadata.revocationEndpoint == base + "/oauth/revoke")
                #expect(metadata.jwksURI == base + "/oauth/jwks")
                #expect(metadata.endSessionEndpoint == base + "/oauth/logout")
                #expect(metadata.responseTypesSupported == ["code"])
                #expect(metadata.codeChallengeMethodsSupported == ["S256"])
                #expect(metadata.idTokenSigningAlgValuesSupported == ["ES256"])
                #expect(metadata.grantTypesSupported.contains("urn:ietf:params:oauth:grant-type:device_code"))
                #expect(metadata.tokenEndpointAuthMethodsSupported.contains("none"))
            }
            _ = try await client.postJSON("/api/test/issuer", ["issuer": "https://elsewhere.invalid"])
            #expect(try await client.get("/.well-known/openid-configuration").decode(AuthServerMetadata.self).issuer == "https://elsewhere.invalid")
            server.setIssuerOverride(nil)
            #expect(try await client.get("/.well-known/openid-configuration").decode(AuthServerMetadata.self).issuer == base)
        }
    }

    @Test("full PKCE flow: form, code, exchange, ID token verified against the JWKS; refresh brings a new ID token")
    func pkceFlow() async throws {
        try await withServer(OIDC.configuration) { _, client in
            let wrong = try await OIDC.submit(client, password: "nope")
            #expect(wrong.status == 200)
            #expect(wrong.text.contains(AuthServerMessages.wrongLoginOrPassword))

            let reply = try await OIDC.submit(client)
            #expect(reply.status == 302)
            #expect(reply.headers["location"]?.hasPrefix(OIDC.redirect + "?") == true)
            let query = OIDC.query(reply)
            #expect(query["state"] == "st&ate")
            let code = try #require(query["code"])

            let tokens = try await OIDC.exchange(client, code: code).decode(OAuthTokenResponse.self)
            #expect(tokens.scope == "openid email")
            let idToken = try #require(tokens.idToken)
            let claims = try await OIDC.verify(idToken, client: client)
            #expect(claims.iss.value == "http://127.0.0.1:\(client.port)")
            #expect(claims.aud.value == [OIDC.publicClient])
            #expect(claims.nonce == "n-123")
            #expect(claims.email == "ann@vault.invalid")
            #expect(claims.name == "ann")
            #expect(claims.exp.value > Date())
            #expect(try await client.developers(tokens.accessToken).status == 200)

            let refreshed = try await client.oauth([
                ("grant_type", "refresh_token"), ("refresh_token", try #require(tokens.refreshToken)), ("client_id", OIDC.publicClient),
            ]).decode(OAuthTokenResponse.self)
            let again = try await OIDC.verify(try #require(refreshed.idToken), client: client)
            #expect(again.sub == claims.sub)
            #expect(again.aud == claims.aud)
            #expect(again.iss == claims.iss)
            #expect(again.nonce == nil)
        }
    }

    @Test("a wrong code_verifier and a second use of a code are invalid_grant")
    func badExchanges() async throws {
        try await withServer(OIDC.configuration) { _, client in
            let code = try await OIDC.code(client)
            expectOAuthError(
                try await OIDC.exchange(client, code: code, verifier: String(repeating: "x", count: 50)), status: 400, error: .invalidGrant)
            expectOAuthError(try await OIDC.exchange(client, code: code), status: 400, error: .invalidGrant)  // used up

            let fresh = try await OIDC.code(client)
            #expect(try await OIDC.exchange(client, code: fresh).status == 200)
            expectOAuthError(try await OIDC.exchange(client, code: fresh), status: 400, error: .invalidGrant)
        }
    }

    @Test("a non-loopback redirect_uri gets an error page, never a redirect; plain PKCE is refused; Deny is access_denied")
    func refusals() async throws {
        try await withServer(OIDC.configuration) { server, client in
            for redirect in ["http://evil.example/callback", "http://127.0.0.1:8080/other", "https://127.0.0.1:8080/callback"] {
                let reply = try await client.get(OIDC.authorizePath(redirect: redirect))
                #expect(reply.status == 400, "\(redirect)")
                #expect(reply.headers["location"] == nil)
            }
            let plain = try await client.get(OIDC.authorizePath(method: "plain"))
            #expect(plain.status == 302)
            #expect(OIDC.query(plain)["error"] == "invalid_request")
            #expect(OIDC.query(plain)["code"] == nil)

            let denied = try await OIDC.submit(client, decision: "deny")
            #expect(denied.status == 302)
            #expect(OIDC.query(denied)["error"] == "access_denied")
            #expect(OIDC.query(denied)["state"] == "st&ate")
            #expect(server.stats.authorizationDenials == 1)
        }
    }

    @Test("rotating the signing key changes the kid and drops the old key from the JWKS")
    func rotation() async throws {
        try await withServer(OIDC.configuration) { server, client in
            let tokens = try await OIDC.exchange(client, code: try await OIDC.code(client)).decode(OAuthTokenResponse.self)
            let before = try JSONSerialization.jsonObject(with: try await client.get("/oauth/jwks").body) as? [String: [[String: String]]]
            let oldKid = try #require(before?["keys"]?.first?["kid"])
            let newKid = await server.rotateSigningKey()
            #expect(newKid != nil && newKid != oldKid)
            let after = try JSONSerialization.jsonObject(with: try await client.get("/oauth/jwks").body) as? [String: [[String: String]]]
            #expect(after?["keys"]?.map { $0["kid"] } == [newKid])
            await #expect(throws: (any Error).self) { try await OIDC.verify(try #require(tokens.idToken), client: client) }
        }
    }
}

@Suite("Device grant, revocation, end session, stats", .offThePool)
struct DeviceAndRevocationTests {
    private struct DeviceReply: Decodable {
        let device_code: String
        let user_code: String
        let verification_uri: String
        let expires_in: Int
        let interval: Int
    }

    private func start(_ client: APIClient) async throws -> DeviceReply {
        let body = "client_id=\(OIDC.publicClient)&scope=openid"
        return try await client.post("/oauth/device_authorization", body: body, contentType: "application/x-www-form-urlencoded").decode()
    }

    private func poll(_ client: APIClient, _ device: DeviceReply) async throws -> HTTPReply {
        try await client.oauth([
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", device.device_code),
            ("client_id", OIDC.publicClient),
        ])
    }

    @Test("device flow: pending, slow_down, approved on the page, tokens with an ID token")
    func approved() async throws {
        // An interval long enough that the second, immediate poll is surely too fast even
        // on a loaded machine (slow_down), and waited out after the approval.
        var configuration = OIDC.configuration
        configuration.deviceInterval = 2
        try await withServer(configuration) { _, client in
            let device = try await start(client)
            #expect(device.user_code.count == 9)
            #expect(device.verification_uri == "http://127.0.0.1:\(client.port)/device")
            expectOAuthError(try await poll(client, device), status: 400, error: .authorizationPending)
            expectOAuthError(try await poll(client, device), status: 400, error: .slowDown)
            let page = try await client.get("/device?user_code=\(device.user_code)")
            #expect(page.text.contains(device.user_code))
            let body = "user_code=\(device.user_code)&login=ann&password=\(client.formEncode(Fixture.user.secret))&decision=allow"
            #expect(try await client.post("/device", body: body, contentType: "application/x-www-form-urlencoded").status == 200)
            try await Task.sleep(for: .milliseconds(2_600))
            let tokens = try await poll(client, device).decode(OAuthTokenResponse.self)
            #expect(tokens.idToken != nil)
            #expect(try await client.developers(tokens.accessToken).status == 200)
        }
    }

    @Test("device flow: denied by the test control is access_denied; an expired code is expired_token")
    func deniedAndExpired() async throws {
        // The denial with the default lifetime (a loaded machine may take a while between
        // the calls); the expiry with a short one, waited out (waiting longer only helps).
        try await withServer(OIDC.configuration) { _, client in
            let device = try await start(client)
            let decision = try await client.postJSON("/api/test/device_decision", ["user_code": device.user_code, "decision": "deny"])
            #expect(decision.status == 200)
            expectOAuthError(try await poll(client, device), status: 400, error: .accessDenied)
        }
        var configuration = OIDC.configuration
        configuration.deviceCodeLifetime = 0.5
        try await withServer(configuration) { _, client in
            let late = try await start(client)
            try await Task.sleep(for: .milliseconds(700))
            expectOAuthError(try await poll(client, late), status: 400, error: .expiredToken)
        }
    }

    @Test("revoked refresh tokens are invalid_grant, revoked access tokens 401; unknown tokens answer 200")
    func revocation() async throws {
        try await withServer(OIDC.configuration) { server, client in
            let tokens = try await OIDC.exchange(client, code: try await OIDC.code(client)).decode(OAuthTokenResponse.self)
            let refresh = try #require(tokens.refreshToken)
            func revoke(_ token: String) async throws -> HTTPReply {
                try await client.post(
                    "/oauth/revoke", body: "token=\(token)&client_id=\(OIDC.publicClient)", contentType: "application/x-www-form-urlencoded")
            }
            #expect(try await revoke(refresh).status == 200)
            expectOAuthError(
                try await client.oauth([("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", OIDC.publicClient)]),
                status: 400, error: .invalidGrant)
            #expect(try await client.developers(tokens.accessToken).status == 200)
            #expect(try await revoke(tokens.accessToken).status == 200)
            #expect(try await client.developers(tokens.accessToken).status == 401)
            #expect(try await revoke("not-a-token").status == 200)
            #expect(server.stats.revocations == 3)
        }
    }

    @Test("end session redirects to a loopback URI only")
    func logout() async throws {
        try await withServer(OIDC.configuration) { _, client in
            let loopback = try await client.get("/oauth/logout?post_logout_redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fbye&state=s")
            #expect(loopback.status == 302)
            #expect(loopback.headers["location"] == "http://127.0.0.1:9/bye?state=s")
            let other = try await client.get("/oauth/logout?post_logout_redirect_uri=http%3A%2F%2Fevil.example%2F")
            #expect(other.status == 200)
            #expect(other.headers["location"] == nil)
        }
    }

    @Test("the new counters count exactly")
    func counters() async throws {
        try await withServer(OIDC.configuration) { server, client in
            _ = try await OIDC.exchange(client, code: try await OIDC.code(client))  // authorizations, codeExchanges, idTokens
            _ = try await OIDC.submit(client, decision: "deny")  // authorizationDenials
            _ = try await client.get("/oauth/jwks")  // jwksFetches
            let device = try await start(client)  // deviceAuthorizations
            _ = try await poll(client, device)  // devicePolls
            _ = try await client.post(
                "/oauth/revoke", body: "token=x&client_id=\(OIDC.publicClient)", contentType: "application/x-www-form-urlencoded")
            let stats = try await client.stats()
            #expect(stats.authorizations == 1)
            #expect(stats.authorizationDenials == 1)
            #expect(stats.codeExchanges == 1)
            #expect(stats.idTokens == 1)
            #expect(stats.jwksFetches == 1)
            #expect(stats.deviceAuthorizations == 1)
            #expect(stats.devicePolls == 1)
            #expect(stats.revocations == 1)
            #expect(server.stats == stats)
        }
    }
}
