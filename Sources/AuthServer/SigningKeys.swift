// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto
import Foundation
import JWTKit
import VaultSync

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

/// One public key of the JWKS (RFC 7517): an EC P-256 key (ES256, `crv`/`x`/`y`) or an
/// RSA key (RS256, `n`/`e`).
struct PublicJWK: Codable, Sendable, Equatable {
    /// `"EC"` or `"RSA"`.
    var kty: String
    /// `"P-256"` (EC only).
    var crv: String?
    /// The x coordinate, base64url (EC only).
    var x: String?
    /// The y coordinate, base64url (EC only).
    var y: String?
    /// The modulus, base64url (RSA only).
    var n: String?
    /// The public exponent, base64url (RSA only).
    var e: String?
    /// The key id, also in the header of every ID token it signs.
    var kid: String
    /// `"ES256"` or `"RS256"`.
    var alg: String
    /// `"sig"`.
    var use = "sig"

    /// An ES256 key.
    static func ec(x: String, y: String, kid: String) -> PublicJWK {
        PublicJWK(kty: "EC", crv: "P-256", x: x, y: y, kid: kid, alg: "ES256")
    }

    /// An RS256 key.
    static func rsa(n: String, e: String, kid: String) -> PublicJWK {
        PublicJWK(kty: "RSA", n: n, e: e, kid: kid, alg: "RS256")
    }
}

/// `{"keys":[...]}`, the body of `GET /oauth/jwks`.
struct PublicJWKS: Codable, Sendable, Equatable {
    /// The keys now in use (one).
    var keys: [PublicJWK]
}

/// The key that signs ID tokens, made at start: ES256 for the OpenID Connect endpoints, RS256
/// for the Sign in with Apple ones (as Apple signs). ``rotate()`` replaces it (new `kid`, the
/// old key is no longer served).
final class SigningKeys: Sendable {
    /// The signature algorithm of a key set.
    enum Algorithm: String, Sendable {
        /// ECDSA P-256 with SHA-256.
        case es256 = "ES256"
        /// RSASSA-PKCS1-v1_5 (2048-bit) with SHA-256.
        case rs256 = "RS256"
    }

    private struct Current {
        let kid: String
        let jwk: PublicJWK
        let collection: JWTKeyCollection
    }

    /// The algorithm of every key this set makes.
    let algorithm: Algorithm
    private let current: Locked<Current>

    private init(algorithm: Algorithm, current: Current) {
        self.algorithm = algorithm
        self.current = Locked(current)
    }

    /// A fresh key (P-256 unless told otherwise).
    static func make(_ algorithm: Algorithm = .es256) async -> SigningKeys {
        SigningKeys(algorithm: algorithm, current: await makeKey(algorithm))
    }

    private static func makeKey(_ algorithm: Algorithm) async -> Current {
        let collection = JWTKeyCollection()
        switch algorithm {
        case .es256:
            let key = ES256PrivateKey()
            let kid = "es256-" + UUID().uuidString.lowercased().prefix(13)
            let parameters = key.publicKey.parameters
            await collection.add(ecdsa: key, kid: JWKIdentifier(string: kid))
            return Current(kid: kid, jwk: .ec(x: parameters?.x ?? "", y: parameters?.y ?? "", kid: kid), collection: collection)
        case .rs256:
            // `.init(keySize:)` is swift-crypto's `_RSA.Signing.PrivateKey`, which jwt-kit's
            // interface exposes; 2048 bits never fails to generate.
            let key = try! Insecure.RSA.PrivateKey(backing: .init(keySize: .bits2048))
            let kid = "rs256-" + UUID().uuidString.lowercased().prefix(13)
            let primitives = try? key.publicKey.getKeyPrimitives()
            await collection.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
            let jwk = PublicJWK.rsa(
                n: primitives?.modulus.base64URLEncoded ?? "", e: primitives?.publicExponent.base64URLEncoded ?? "", kid: kid)
            return Current(kid: kid, jwk: jwk, collection: collection)
        }
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
        let next = await Self.makeKey(algorithm)
        current.withLock { $0 = next }
        return next.kid
    }

    /// `token` with the last characters of its signature changed (still base64url).
    static func damaged(_ token: String) -> String {
        var text = Array(token)
        for index in text.indices.suffix(6) { text[index] = text[index] == "A" ? "B" : "A" }
        return String(text)
    }

    /// Signs `claims` with the current key (header `alg` ES256 or RS256, `kid`).
    func sign(_ claims: some JWTPayload) async throws -> String {
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

    private let state: Locked<State>

    /// Starts with the configured override (if any) and no base URL yet.
    init(issuerOverride: String?) {
        self.state = Locked(State(issuerOverride: issuerOverride))
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
