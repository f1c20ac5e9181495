// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto
import Foundation
import JWTKit
import Synchronization

/// The claims of an OpenID Connect ID token (Core §2) signed by this server.
struct IDTokenClaims: JWTPayload, Equatable {
    enum CodingKeys: String, CodingKey {
        case issuer = "iss"
        case subject = "sub"
        case audience = "aud"
        case expiration = "exp"
        case issuedAt = "iat"
        case nonce
        case email
        case name
    }

    /// The issuer (the server's base URL, or the test override).
    var issuer: IssuerClaim
    /// The user id (decimal), as in the access tokens.
    var subject: SubjectClaim
    /// The client id.
    var audience: AudienceClaim
    /// Expiry (the access token's).
    var expiration: ExpirationClaim
    /// Issue time.
    var issuedAt: IssuedAtClaim
    /// The `nonce` of the authorization request; never on refresh.
    var nonce: String?
    /// `LOGIN@vault.invalid`.
    var email: String
    /// The login.
    var name: String

    /// Clients check the claims; the server only signs.
    func verify(using algorithm: some JWTAlgorithm) throws {}
}

/// One public key of the JWKS (RFC 7517, an EC P-256 key).
struct PublicJWK: Codable, Sendable, Equatable {
    /// `"EC"`.
    var kty = "EC"
    /// `"P-256"`.
    var crv = "P-256"
    /// The x coordinate, base64url.
    var x: String
    /// The y coordinate, base64url.
    var y: String
    /// The key id, also in the header of every ID token it signs.
    var kid: String
    /// `"ES256"`.
    var alg = "ES256"
    /// `"sig"`.
    var use = "sig"
}

/// `{"keys":[...]}`, the body of `GET /oauth/jwks`.
struct PublicJWKS: Codable, Sendable, Equatable {
    /// The keys now in use (one).
    var keys: [PublicJWK]
}

/// The ES256 key that signs ID tokens, made at start; ``rotate()`` replaces it (new `kid`,
/// the old key is no longer served).
final class SigningKeys: Sendable {
    private struct Current {
        let kid: String
        let jwk: PublicJWK
        let collection: JWTKeyCollection
    }

    private let current: Mutex<Current>

    private init(current: Current) {
        self.current = Mutex(current)
    }

    /// A fresh P-256 key.
    static func make() async -> SigningKeys {
        SigningKeys(current: await makeKey())
    }

    private static func makeKey() async -> Current {
        let key = ES256PrivateKey()
        let kid = "es256-" + UUID().uuidString.lowercased().prefix(13)
        let parameters = key.publicKey.parameters
        let jwk = PublicJWK(x: parameters?.x ?? "", y: parameters?.y ?? "", kid: kid)
        let collection = JWTKeyCollection()
        await collection.add(ecdsa: key, kid: JWKIdentifier(string: kid))
        return Current(kid: kid, jwk: jwk, collection: collection)
    }

    /// The JWKS to serve.
    var jwks: PublicJWKS {
        current.withLock { PublicJWKS(keys: [$0.jwk]) }
    }

    /// The `kid` of the current key.
    var kid: String {
        current.withLock { $0.kid }
    }

    /// Replaces the key; returns the new `kid`.
    @discardableResult
    func rotate() async -> String {
        let next = await Self.makeKey()
        current.withLock { $0 = next }
        return next.kid
    }

    /// `token` with the last characters of its signature changed (still base64url).
    static func damaged(_ token: String) -> String {
        var text = Array(token)
        for index in text.indices.suffix(6) { text[index] = text[index] == "A" ? "B" : "A" }
        return String(text)
    }

    /// Signs `claims` with the current key (header `alg` ES256, `kid`).
    func sign(_ claims: IDTokenClaims) async throws -> String {
        let (kid, collection) = current.withLock { ($0.kid, $0.collection) }
        return try await collection.sign(claims, kid: JWKIdentifier(string: kid))
    }
}

/// The server's own base URL once it listens, and the issuer its metadata names.
final class ServerIdentity: Sendable {
    private struct State {
        var baseURL = ""
        var issuerOverride: String?
    }

    private let state: Mutex<State>

    /// Starts with the configured override (if any) and no base URL yet.
    init(issuerOverride: String?) {
        self.state = Mutex(State(issuerOverride: issuerOverride))
    }

    /// `http://HOST:PORT`, the URL clients use; empty before the server listens.
    var baseURL: String {
        get { state.withLock { $0.baseURL } }
        set { state.withLock { $0.baseURL = newValue } }
    }

    /// The issuer: the override when set, else ``baseURL``. ID tokens carry it too.
    var issuer: String {
        state.withLock { $0.issuerOverride ?? $0.baseURL }
    }

    /// Sets or clears the issuer override.
    func setIssuerOverride(_ issuer: String?) {
        state.withLock { $0.issuerOverride = issuer }
    }
}
