// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Crypto
import Foundation
import JWTKit
import Testing
import VaultTestSupport

/// The claims of a client secret as a test writes them (any may be left out or wrong).
private struct SecretClaims: JWTPayload {
    var iss: String?
    var sub: String?
    var aud: String?
    var iat: IssuedAtClaim?
    var exp: ExpirationClaim?

    func verify(using algorithm: some JWTAlgorithm) throws {}
}

/// The ID-token claims as an Apple client reads them.
private struct AppleClaims: JWTPayload {
    var iss: IssuerClaim
    var aud: AudienceClaim
    var sub: SubjectClaim
    var iat: IssuedAtClaim
    var exp: ExpirationClaim
    var nonce: String?
    var email: String?

    func verify(using algorithm: some JWTAlgorithm) throws {}
}

/// One registered Apple client (with its private key) and the requests a test sends.
private struct AppleFixture {
    static let clientID = "com.example.vault"
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static let audience = "https://appleid.apple.com"

    let key = P256.Signing.PrivateKey()

    var client: AppleClient {
        AppleClient(clientID: Self.clientID, teamID: Self.teamID, keyID: Self.keyID, publicKeyPEM: key.publicKey.pemRepresentation)
    }

    func configuration(testControls: Bool = true, more: [AppleClient] = []) -> AuthServerConfiguration {
        AuthServerConfiguration(testControls: testControls, appleClients: [client] + more)
    }

    /// A client secret; every part defaults to the right value.
    func secret(
        iss: String? = teamID, sub: String? = clientID, aud: String? = audience, kid: String = keyID,
        iat: Date? = Date(), exp: Date? = Date().addingTimeInterval(3600), signer: P256.Signing.PrivateKey? = nil
    ) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PrivateKey(pem: (signer ?? key).pemRepresentation), kid: JWKIdentifier(string: kid))
        let claims = SecretClaims(
            iss: iss, sub: sub, aud: aud, iat: iat.map { IssuedAtClaim(value: $0) }, exp: exp.map { ExpirationClaim(value: $0) })
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// `secret`, or a valid client secret.
    func resolved(_ secret: String?) async throws -> String {
        if let secret { return secret }
        return try await self.secret()
    }

    /// `POST path` with form fields.
    static func post(_ api: APIClient, _ path: String, _ fields: [(String, String)]) async throws -> HTTPReply {
        let body = fields.map { "\(api.formEncode($0.0))=\(api.formEncode($0.1))" }.joined(separator: "&")
        return try await api.post(path, body: body, contentType: "application/x-www-form-urlencoded")
    }

    /// `grant_type=authorization_code`.
    func exchange(
        _ api: APIClient, code: String, secret: String? = nil, clientID: String = clientID, redirectURI: String? = nil
    ) async throws -> HTTPReply {
        var fields = [("grant_type", "authorization_code"), ("code", code), ("client_id", clientID)]
        fields.append(("client_secret", try await resolved(secret)))
        if let redirectURI { fields.append(("redirect_uri", redirectURI)) }
        return try await Self.post(api, "/apple/auth/token", fields)
    }

    /// `grant_type=refresh_token`.
    func refresh(_ api: APIClient, _ refreshToken: String) async throws -> HTTPReply {
        try await Self.post(
            api, "/apple/auth/token",
            [
                ("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", Self.clientID),
                ("client_secret", try await secret()),
            ])
    }

    /// `POST /apple/auth/revoke`.
    func revoke(_ api: APIClient, _ token: String, hint: String?, secret: String? = nil) async throws -> HTTPReply {
        var fields = [("token", token), ("client_id", Self.clientID), ("client_secret", try await resolved(secret))]
        if let hint { fields.append(("token_type_hint", hint)) }
        return try await Self.post(api, "/apple/auth/revoke", fields)
    }

    /// A code minted over HTTP (`POST /api/test/apple_code`).
    static func mint(_ api: APIClient, _ json: String) async throws -> String {
        let reply = try await api.post("/api/test/apple_code", body: json)
        #expect(reply.status == 200, "\(reply.text)")
        return try #require(try reply.decode([String: String].self)["code"])
    }

    /// A successful exchange of a fresh code for `sub`.
    func signIn(_ server: ReferenceAuthServer, _ api: APIClient, sub: String = "001234.abcdef") async throws -> OAuthTokenResponse {
        let code = try #require(server.mintAppleCode(AppleCodeRequest(sub: sub, email: "u@privaterelay.appleid.com")))
        let reply = try await exchange(api, code: code)
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.decode(OAuthTokenResponse.self)
    }

    /// Checks `token` against `GET /apple/auth/keys`: its header (RS256, a served `kid`), and
    /// returns its verified claims and its raw payload.
    static func verify(_ token: String, api: APIClient) async throws -> (claims: AppleClaims, raw: [String: Any]) {
        let jwks = try await api.get("/apple/auth/keys")
        #expect(jwks.status == 200)
        let keys = try await JWTKeyCollection().add(jwksJSON: jwks.text)
        let claims = try await keys.verify(token, as: AppleClaims.self)
        let header = try #require(try jsonObject(part: 0, of: token))
        #expect(header["alg"] as? String == "RS256")
        let served = try #require(try JSONSerialization.jsonObject(with: jwks.body) as? [String: [[String: Any]]])["keys"]
        #expect(served?.contains { $0["kid"] as? String == header["kid"] as? String } == true)
        return (claims, try #require(try jsonObject(part: 1, of: token)))
    }

    static func jsonObject(part: Int, of token: String) throws -> [String: Any]? {
        var text = String(token.split(separator: ".")[part]).replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text) else { return nil }
        return try JSONSerialization.jsonObject(with: data) as? [String: Any]
    }
}

/// Expects Apple's `{"error":"CODE"}` with status 400.
private func expectAppleError(_ reply: HTTPReply, _ code: String, status: Int = 400, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(reply.status == status, "status of \(reply.text)", sourceLocation: sourceLocation)
    #expect(reply.text == #"{"error":"\#(code)"}"#, sourceLocation: sourceLocation)
}

@Suite("Sign in with Apple: /apple/auth/token, /apple/auth/keys, /apple/auth/revoke", .offThePool)
struct AppleEndpointTests {
    private let apple = AppleFixture()

    @Test("code exchange: tokens, an access token /api/get_devs accepts, an RS256 ID token with boolean claims")
    func codeExchange() async throws {
        try await withServer(apple.configuration()) { server, api in
            let code = try await AppleFixture.mint(
                api,
                #"{"sub":"001234.abc","email":"x@privaterelay.appleid.com","is_private_email":true,"email_verified":true,"nonce":"n-1"}"#)
            let sent = ContinuousClock.now
            let reply = try await apple.exchange(api, code: code, redirectURI: "https://example.com/callback")
            let took = Int((ContinuousClock.now - sent).components.seconds) + 1
            #expect(reply.status == 200, "\(reply.text)")
            let keys = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any]).keys
            #expect(Set(keys) == ["access_token", "token_type", "expires_in", "refresh_token", "id_token"])
            let tokens = try reply.decode(OAuthTokenResponse.self)
            #expect(tokens.tokenType == "Bearer")
            // Relative, rounded up, counted from the issue: a loaded machine's slow reply
            // takes its time off, never more.
            #expect((60 - took...60).contains(tokens.expiresIn), "expires_in \(tokens.expiresIn) after a \(took) s exchange")
            #expect(tokens.refreshToken?.isEmpty == false)
            #expect(try await api.developers(tokens.accessToken).status == 200)

            let (claims, raw) = try await AppleFixture.verify(try #require(tokens.idToken), api: api)
            #expect(claims.iss.value == "http://127.0.0.1:\(api.port)/apple")
            #expect(claims.aud.value == [AppleFixture.clientID])
            #expect(claims.sub.value == "001234.abc")
            #expect(claims.nonce == "n-1")
            #expect(claims.email == "x@privaterelay.appleid.com")
            #expect(claims.exp.value.timeIntervalSince(claims.iat.value) == 600)
            #expect(abs(claims.iat.value.timeIntervalSinceNow) < 60)
            #expect(raw["email_verified"] as? Bool == true && !(raw["email_verified"] is String))
            #expect(raw["is_private_email"] as? Bool == true && !(raw["is_private_email"] is String))

            let stats = server.stats
            #expect(stats.codeExchanges == 1 && stats.idTokens == 1 && stats.jwksFetches == 1 && stats.authorized == 1)
        }
    }

    @Test("claims_as_strings sends the e-mail booleans as \"true\"/\"false\"; without e-mail there are none")
    func stringClaims() async throws {
        try await withServer(apple.configuration()) { server, api in
            let code = try await AppleFixture.mint(
                api, #"{"sub":"s-2","email":"a@b.example","is_private_email":false,"claims_as_strings":true}"#)
            let tokens = try await apple.exchange(api, code: code).decode(OAuthTokenResponse.self)
            let raw = try await AppleFixture.verify(try #require(tokens.idToken), api: api).raw
            #expect(raw["email_verified"] as? String == "true")
            #expect(raw["is_private_email"] as? String == "false")
            #expect(raw["nonce"] == nil)

            let bare = try #require(server.mintAppleCode(AppleCodeRequest(sub: "s-3")))
            let plain = try await apple.exchange(api, code: bare).decode(OAuthTokenResponse.self)
            let none = try await AppleFixture.verify(try #require(plain.idToken), api: api)
            #expect(none.claims.sub.value == "s-3")
            #expect(none.raw["email"] == nil && none.raw["email_verified"] == nil && none.raw["is_private_email"] == nil)
        }
    }

    @Test("refresh: a new access token and ID token, no refresh_token; the same refresh token keeps working")
    func refreshDoesNotRotate() async throws {
        try await withServer(apple.configuration()) { server, api in
            let tokens = try await apple.signIn(server, api, sub: "s-r")
            let refreshToken = try #require(tokens.refreshToken)
            for _ in 0..<2 {
                let reply = try await apple.refresh(api, refreshToken)
                #expect(reply.status == 200, "\(reply.text)")
                #expect(!reply.text.contains("refresh_token"))
                let refreshed = try reply.decode(OAuthTokenResponse.self)
                #expect(refreshed.refreshToken == nil)
                #expect(refreshed.accessToken != tokens.accessToken)
                #expect(try await api.developers(refreshed.accessToken).status == 200)
                let claims = try await AppleFixture.verify(try #require(refreshed.idToken), api: api).claims
                #expect(claims.sub.value == "s-r")
                #expect(claims.email == "u@privaterelay.appleid.com")
            }
            let stats = server.stats
            #expect(stats.refreshes == 2 && stats.refreshAttempts == 2 && stats.failedRefreshes == 0)
            expectAppleError(try await apple.refresh(api, "not-a-token"), "invalid_grant")
            expectAppleError(try await apple.refresh(api, tokens.accessToken), "invalid_grant")
            #expect(server.stats.failedRefreshes == 2)
        }
    }

    @Test("an expired refresh token is invalid_grant")
    func expiredRefreshToken() async throws {
        var configuration = apple.configuration()
        configuration.refreshTokenLifetime = 0.5
        try await withServer(configuration) { server, api in
            let tokens = try await apple.signIn(server, api)
            try await Task.sleep(for: .milliseconds(700))
            expectAppleError(try await apple.refresh(api, try #require(tokens.refreshToken)), "invalid_grant")
        }
    }

    @Test("with an idle timeout: each use restarts the unrotated token's idle clock (refresh_expires_in says so); idle past it, invalid_grant")
    func idleRefreshToken() async throws {
        var configuration = apple.configuration()
        configuration.refreshTokenIdleLifetime = 3
        try await withServer(configuration) { server, api in
            let code = try #require(server.mintAppleCode(AppleCodeRequest(sub: "s-idle", email: "u@privaterelay.appleid.com")))
            // The server's use of the token is no earlier than this; its idle deadline no earlier than 3 s later.
            var lastUse = nowMillis()
            let signedIn = try await apple.exchange(api, code: code)
            #expect(signedIn.status == 200, "\(signedIn.text)")
            let tokens = try signedIn.decode(OAuthTokenResponse.self)
            #expect((2...3).contains(tokens.refreshExpiresIn ?? -1), "\(signedIn.text)")
            let refreshToken = try #require(tokens.refreshToken)
            // Four uses 1 s apart outlive the first window (3 s after the sign-in).
            for _ in 0..<4 {
                try await Task.sleep(for: .milliseconds(1_000))
                let sent = nowMillis()
                let reply = try await apple.refresh(api, refreshToken)
                // A refusal counts only when the reply came inside the window.
                guard reply.status == 200 || nowMillis() < lastUse + 3_000 else {
                    Issue.record("the machine was too slow to use the token inside a 3 s idle window")
                    return
                }
                #expect(reply.status == 200, "\(reply.text)")
                #expect((2...3).contains(try reply.decode(OAuthTokenResponse.self).refreshExpiresIn ?? -1), "\(reply.text)")
                lastUse = sent
            }
            try await Task.sleep(for: .milliseconds(3_300))
            expectAppleError(try await apple.refresh(api, refreshToken), "invalid_grant")
            #expect(server.stats.refreshes == 4 && server.stats.failedRefreshes == 1)
        }
    }

    @Test("a used, expired, unknown or foreign code, or a wrong redirect_uri, is invalid_grant")
    func badCodes() async throws {
        let other = P256.Signing.PrivateKey()
        let second = AppleClient(clientID: "com.example.other", teamID: "TEAM2", keyID: "K2", publicKeyPEM: other.publicKey.pemRepresentation)
        try await withServer(apple.configuration(more: [second])) { server, api in
            let code = try #require(server.mintAppleCode(AppleCodeRequest(sub: "s", clientID: AppleFixture.clientID)))
            #expect(try await apple.exchange(api, code: code).status == 200)
            expectAppleError(try await apple.exchange(api, code: code), "invalid_grant")

            let expired = try await AppleFixture.mint(api, #"{"sub":"s","client_id":"com.example.vault","expires_in":0}"#)
            expectAppleError(try await apple.exchange(api, code: expired), "invalid_grant")
            let short = try #require(server.mintAppleCode(AppleCodeRequest(sub: "s", clientID: AppleFixture.clientID, expiresIn: 0.3)))
            try await Task.sleep(for: .milliseconds(500))
            expectAppleError(try await apple.exchange(api, code: short), "invalid_grant")

            expectAppleError(try await apple.exchange(api, code: "no-such-code"), "invalid_grant")

            let foreign = try #require(server.mintAppleCode(AppleCodeRequest(sub: "s", clientID: "com.example.other")))
            expectAppleError(try await apple.exchange(api, code: foreign), "invalid_grant")

            let bound = try #require(
                server.mintAppleCode(AppleCodeRequest(sub: "s", clientID: AppleFixture.clientID, redirectURI: "https://a.example/cb")))
            expectAppleError(try await apple.exchange(api, code: bound, redirectURI: "https://b.example/cb"), "invalid_grant")
            expectAppleError(try await apple.exchange(api, code: bound, redirectURI: "https://a.example/cb"), "invalid_grant")  // used up
            #expect(server.stats.codeExchanges == 1)
        }
    }

    @Test("client secrets are checked as Apple documents; every failure is invalid_client and never echoes the secret")
    func badClientSecrets() async throws {
        let now = Date()
        let stranger = P256.Signing.PrivateKey()
        try await withServer(apple.configuration()) { server, api in
            let code = try #require(server.mintAppleCode(AppleCodeRequest(sub: "s")))
            let bad: [(String, String)] = [
                ("wrong kid", try await apple.secret(kid: "OTHERKEY")),
                ("wrong iss", try await apple.secret(iss: "TEAM999999")),
                ("no iss", try await apple.secret(iss: nil)),
                ("wrong sub", try await apple.secret(sub: "com.example.other")),
                ("wrong aud", try await apple.secret(aud: "http://127.0.0.1:\(api.port)")),
                ("expired", try await apple.secret(exp: now.addingTimeInterval(-10))),
                ("exp over six months", try await apple.secret(exp: now.addingTimeInterval(15_777_000 + 120))),
                ("no exp", try await apple.secret(exp: nil)),
                ("no iat", try await apple.secret(iat: nil)),
                ("bad signature", try await apple.secret(signer: stranger)),
                ("not a JWT", "not.a.jwt"),
            ]
            for (name, secret) in bad {
                let reply = try await apple.exchange(api, code: code, secret: secret)
                #expect(reply.status == 400, "\(name)")
                #expect(reply.text == #"{"error":"invalid_client"}"#, "\(name)")
                #expect(!reply.text.contains(secret), "\(name)")
            }
            let unregistered = try await apple.exchange(
                api, code: code, secret: try await apple.secret(sub: "com.example.unknown"), clientID: "com.example.unknown")
            expectAppleError(unregistered, "invalid_client")
            // Refused clients never reach the code: it still works, with a secret near the six-month limit.
            let longLived = try await apple.secret(exp: now.addingTimeInterval(15_777_000 - 120))
            #expect(try await apple.exchange(api, code: code, secret: longLived).status == 200)
            let refresh = [
                ("grant_type", "refresh_token"), ("refresh_token", "r"), ("client_id", AppleFixture.clientID), ("client_secret", bad[1].1),
            ]
            expectAppleError(try await AppleFixture.post(api, "/apple/auth/token", refresh), "invalid_client")
            expectAppleError(try await apple.revoke(api, "t", hint: nil, secret: bad[0].1), "invalid_client")
            #expect(server.stats.refreshAttempts == 0)
        }
    }

    @Test("revoking the refresh token makes refresh invalid_grant; revoking the access token makes it 401; unknown tokens answer 200")
    func revocation() async throws {
        try await withServer(apple.configuration()) { server, api in
            let tokens = try await apple.signIn(server, api)
            let refreshToken = try #require(tokens.refreshToken)
            #expect(try await apple.refresh(api, refreshToken).status == 200)

            let revoked = try await apple.revoke(api, refreshToken, hint: "refresh_token")
            #expect(revoked.status == 200, "\(revoked.text)")
            #expect(revoked.body.isEmpty)
            expectAppleError(try await apple.refresh(api, refreshToken), "invalid_grant")

            #expect(try await api.developers(tokens.accessToken).status == 200)
            #expect(try await apple.revoke(api, tokens.accessToken, hint: "access_token").status == 200)
            #expect(try await api.developers(tokens.accessToken).status == 401)

            let unknown = try await apple.revoke(api, "no-such-token", hint: nil)
            #expect(unknown.status == 200 && unknown.body.isEmpty)
            expectAppleError(try await apple.revoke(api, refreshToken, hint: nil, secret: try await apple.secret(iss: "X")), "invalid_client")
            expectAppleError(try await AppleFixture.post(api, "/apple/auth/revoke", [("client_id", AppleFixture.clientID)]), "invalid_request")
            #expect(server.stats.revocations == 3)
        }
    }

    @Test("another grant is unsupported_grant_type; missing fields and a wrong content type are invalid_request")
    func requestErrors() async throws {
        try await withServer(apple.configuration()) { _, api in
            let secret = try await apple.secret()
            let client = [("client_id", AppleFixture.clientID), ("client_secret", secret)]
            expectAppleError(
                try await AppleFixture.post(api, "/apple/auth/token", [("grant_type", "password")] + client), "unsupported_grant_type")
            expectAppleError(
                try await AppleFixture.post(api, "/apple/auth/token", [("grant_type", "authorization_code")] + client), "invalid_request")
            expectAppleError(
                try await AppleFixture.post(api, "/apple/auth/token", [("grant_type", "refresh_token")] + client), "invalid_request")
            expectAppleError(try await AppleFixture.post(api, "/apple/auth/token", client), "invalid_request")
            expectAppleError(
                try await AppleFixture.post(
                    api, "/apple/auth/token", [("grant_type", "authorization_code"), ("code", "c"), ("client_id", AppleFixture.clientID)]),
                "invalid_request")
            let json = try await api.post("/apple/auth/token", body: #"{"grant_type":"authorization_code"}"#)
            expectAppleError(json, "invalid_request")
        }
    }

    @Test("the refresh fault switch applies to both grants (a faulted exchange keeps its code)")
    func faults() async throws {
        try await withServer(apple.configuration()) { server, api in
            let code = try #require(server.mintAppleCode(AppleCodeRequest(sub: "s")))
            server.faults.set(.status500, count: 1)
            expectAppleError(try await apple.exchange(api, code: code), "server_error", status: 500)
            let tokens = try await apple.exchange(api, code: code).decode(OAuthTokenResponse.self)

            #expect(try await api.post("/api/test/fault", body: #"{"mode":"garbage","count":1}"#).status == 200)
            let garbage = try await apple.refresh(api, try #require(tokens.refreshToken))
            #expect(garbage.status == 200 && (try? garbage.decode(OAuthTokenResponse.self)) == nil)
            #expect(try await apple.refresh(api, try #require(tokens.refreshToken)).status == 200)
            let stats = server.stats
            #expect(stats.faultedRefreshes == 1 && stats.refreshAttempts == 2 && stats.refreshes == 1)
        }
    }

    @Test("the ID-token fault knob and the issuer override apply to Apple ID tokens")
    func idTokenFaults() async throws {
        try await withServer(apple.configuration()) { server, api in
            #expect(try await api.post("/api/test/id_token_fault", body: #"{"fault":"wrong_audience"}"#).status == 200)
            var token = try #require(try await apple.signIn(server, api).idToken)
            #expect(try await AppleFixture.verify(token, api: api).claims.aud.value == ["another-client"])

            server.setIDTokenFault(.wrongNonce)
            let code = try #require(server.mintAppleCode(AppleCodeRequest(sub: "s", nonce: "right")))
            token = try #require(try await apple.exchange(api, code: code).decode(OAuthTokenResponse.self).idToken)
            #expect(try await AppleFixture.verify(token, api: api).claims.nonce == "not-the-nonce")

            for fault in [IDTokenFault.badSignature, .unpublishedKey] {
                server.setIDTokenFault(fault)
                token = try #require(try await apple.signIn(server, api).idToken)
                await #expect(throws: (any Error).self, "\(fault)") { _ = try await AppleFixture.verify(token, api: api) }
            }

            server.setIDTokenFault(.none)
            server.setIssuerOverride("https://issuer.example")
            token = try #require(try await apple.signIn(server, api).idToken)
            #expect(try await AppleFixture.verify(token, api: api).claims.iss.value == "https://issuer.example/apple")
        }
    }

    @Test("/apple/auth/keys serves the RS256 key, which rotation replaces")
    func keys() async throws {
        try await withServer(apple.configuration()) { server, api in
            let jwks = try await api.get("/apple/auth/keys")
            #expect(jwks.status == 200)
            let keys = try #require(try JSONSerialization.jsonObject(with: jwks.body) as? [String: [[String: String]]])["keys"]
            let key = try #require(keys?.first)
            #expect(keys?.count == 1)
            #expect(key["kty"] == "RSA" && key["alg"] == "RS256" && key["use"] == "sig" && key["n"] != nil && key["e"] == "AQAB")
            let kid = try #require(await server.rotateAppleSigningKey())
            #expect(kid != key["kid"])
            #expect(try await api.get("/apple/auth/keys").text.contains(kid))
            let token = try #require(try await apple.signIn(server, api).idToken)
            _ = try await AppleFixture.verify(token, api: api)
        }
    }

    @Test("without an Apple client /apple answers 404; without test controls apple_code does")
    func notServed() async throws {
        try await withServer(AuthServerConfiguration(testControls: true)) { server, api throws in
            #expect(try await api.get("/apple/auth/keys").status == 404)
            #expect(try await AppleFixture.post(api, "/apple/auth/token", [("grant_type", "refresh_token")]).status == 404)
            #expect(try await AppleFixture.post(api, "/apple/auth/revoke", [("token", "t")]).status == 404)
            #expect(try await api.post("/api/test/apple_code", body: #"{"sub":"s"}"#).status == 404)
            #expect(server.mintAppleCode(AppleCodeRequest(sub: "s")) == nil)
        }
        try await withServer(apple.configuration(testControls: false)) { server, api in
            expectError(try await api.post("/api/test/apple_code", body: #"{"sub":"s"}"#), status: 404, message: AuthServerMessages.notFound)
            #expect(server.mintAppleCode(AppleCodeRequest(sub: "s")) != nil)
        }
    }

    @Test("apple_code: client_id required among several, unknown client 404, empty sub 400")
    func mintControl() async throws {
        let second = AppleClient(clientID: "b", teamID: "T", keyID: "K", publicKeyPEM: P256.Signing.PrivateKey().publicKey.pemRepresentation)
        try await withServer(apple.configuration(more: [second])) { server, api throws in
            #expect(try await api.post("/api/test/apple_code", body: #"{"sub":"s"}"#).status == 400)
            #expect(try await api.post("/api/test/apple_code", body: #"{"sub":"s","client_id":"zzz"}"#).status == 404)
            #expect(try await api.post("/api/test/apple_code", body: #"{"sub":"","client_id":"b"}"#).status == 400)
            #expect(try await api.post("/api/test/apple_code", body: #"{"client_id":"b"}"#).status == 400)
            #expect(try await api.post("/api/test/apple_code", body: #"{"sub":"s","client_id":"b"}"#).status == 200)
            #expect(server.mintAppleCode(AppleCodeRequest(sub: "s")) == nil)
            #expect(server.mintAppleCode(AppleCodeRequest(sub: "s", clientID: "b", expiresIn: -1)) == nil)
            #expect(server.mintAppleCode(AppleCodeRequest(sub: "s", clientID: "b")) != nil)
        }
    }

    @Test("configurations with an unusable Apple client are refused")
    func configuration() {
        let pem = apple.key.publicKey.pemRepresentation
        for clients in [
            [AppleClient(clientID: "a", teamID: "T", keyID: "K", publicKeyPEM: "not a key")],
            [AppleClient(clientID: "a", teamID: "T", keyID: "K", publicKeyPEM: apple.key.pemRepresentation)],
            [AppleClient(clientID: "a", teamID: "", keyID: "K", publicKeyPEM: pem)],
            [
                AppleClient(clientID: "a", teamID: "T", keyID: "K", publicKeyPEM: pem),
                AppleClient(clientID: "a", teamID: "U", keyID: "L", publicKeyPEM: pem),
            ],
        ] {
            #expect(throws: AuthServerConfigurationError.self) {
                try ReferenceAuthServer(configuration: AuthServerConfiguration(appleClients: clients))
            }
        }
        #expect(throws: Never.self) { try ReferenceAuthServer(configuration: apple.configuration()) }
    }
}

@Suite("vault-auth-server --apple-client", .enabled(if: serverBinary != nil, "vault-auth-server is not built"), .offThePool)
struct AppleExecutableTests {
    @Test("bad values and unreadable or invalid key files are usage errors; a good one serves /apple")
    func appleClientOption() async throws {
        let binary = try #require(serverBinary)
        let key = P256.Signing.PrivateKey()
        try await withTemporaryDirectory("apple-client") { directory in
            let good = directory + "/key.pem"
            let privateKey = directory + "/private.pem"
            let junk = directory + "/junk.pem"
            try key.publicKey.pemRepresentation.write(toFile: good, atomically: true, encoding: .utf8)
            try key.pemRepresentation.write(toFile: privateKey, atomically: true, encoding: .utf8)
            try "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n".write(toFile: junk, atomically: true, encoding: .utf8)
            let bad: [([String], String)] = [
                (["--apple-client", "id:team:kid"], "--apple-client expects ID:TEAMID:KEYID:PUBLIC_KEY_PEM_FILE"),
                (["--apple-client", "id::kid:\(good)"], "--apple-client expects ID:TEAMID:KEYID:PUBLIC_KEY_PEM_FILE"),
                (["--apple-client", "id:team:kid:\(directory)/missing.pem"], "--apple-client id: cannot read the key file"),
                (["--apple-client", "id:team:kid:\(junk)"], "--apple-client id: \(junk) holds no P-256 public key in PEM"),
                (["--apple-client", "id:team:kid:\(privateKey)"], "--apple-client id: \(privateKey) holds no P-256 public key in PEM"),
                (["--apple-client", "id:team:kid:\(good)", "--apple-client", "id:t2:k2:\(good)"], "--apple-client ids must be unique"),
            ]
            for (arguments, message) in bad {
                let result = try await ChildProcess.runAsync(binary.path, arguments, timeout: 20)
                #expect(result.status == 64, "\(arguments)")
                #expect(result.err.hasPrefix("Error: " + message), "\(arguments): \(result.err)")
                #expect(!result.out.contains("listening"))
            }

            let server = try ChildProcess(binary.path, ["--port", "0", "--apple-client", "id:team:kid:\(good)"], stderr: .discarded)
            defer { if server.isRunning { server.kill() } }
            let shown = try await server.waitForOutput(timeout: 30) { $0.contains("\n") }
            let line = String(try #require(shown, "no first line within 30 s").prefix { $0 != "\n" })
            let port = try #require(Int(line.split(separator: ":").last ?? ""), "\(line)")
            let keys = try await APIClient(port: port).get("/apple/auth/keys")
            #expect(keys.status == 200 && keys.text.contains(#""alg":"RS256""#), "\(keys.text)")
            server.terminate()
            _ = try await server.finishAsync(timeout: 10)
        }
    }
}
