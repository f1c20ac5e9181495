// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import JWTKit
import VaultStore

/// Verifies OpenID Connect ID tokens (Core §3.1.3.7, and §12.2 for those that come with a
/// refresh): the signature against the provider's JWKS, then `iss`, `aud`/`azp`, `exp`,
/// `iat` and `nonce`. The JWKS is fetched on first use and kept; a token signed with a `kid`
/// the kept set lacks makes it fetch the set once more (key rotation), never more than once
/// per token.
///
/// Every failure is ``AuthError/authentication(_:providerCode:remedy:)`` naming the check that
/// failed, except a JWKS that cannot be fetched (`.server` / `.network`). No token text is
/// ever put in a message.
public actor IDTokenVerifier {
    /// The issuer ID tokens must name, exactly.
    public let issuer: String
    /// This client's id: it must be in `aud` (and be `azp` when `azp` is present).
    public let clientID: String
    /// Where the provider's signing keys are.
    public let jwksURL: URL
    /// How far `iat` may lie in the future and `exp` in the past, for clock differences (default 120 s).
    public let skew: TimeInterval
    private let transport: any HTTPTransport
    private let clock: any AuthClock
    private let timeout: Duration
    /// The published keys by `kid`: several when a set gives one `kid` to more than one key
    /// (RFC 7517 §4.5 only asks that it should not), each tried in turn.
    private var keys: [String: [JWK]]?
    private var anonymousKey: JWK?
    /// One jwt-kit collection per key in use, dropped on each fetch.
    private var collections: [KeyPosition: JWTKeyCollection] = [:]

    /// A published key: its `kid` and its place among the keys that share it.
    private struct KeyPosition: Hashable {
        var kid: String
        var index: Int
    }
    /// How many times the JWKS was fetched (for tests and benchmarks).
    public private(set) var fetches = 0

    /// The signature algorithms accepted in a token's header; `none` and HMAC never are.
    public static let acceptedAlgorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384"]

    /// A verifier for tokens that `issuer` issues to `clientID`, with the keys at `jwksURL`.
    public init(
        issuer: String, clientID: String, jwksURL: URL, transport: any HTTPTransport, clock: any AuthClock = SystemClock(),
        timeout: Duration = .seconds(15), skew: TimeInterval = 120
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.jwksURL = jwksURL
        self.transport = transport
        self.clock = clock
        self.timeout = timeout
        self.skew = skew
    }

    /// The claims of `token` once every check passed.
    ///
    /// - Parameters:
    ///   - nonce: the `nonce` of the authorization request; the token must carry exactly it.
    ///     nil (refresh, device grant): a `nonce` in the token is not checked against anything.
    ///   - previous: the claims of the account's earlier ID token, for a token that came with a
    ///     refresh: `iss`, `sub` and `aud` must be the same (Core §12.2).
    public func verify(_ token: String, nonce: String?, previous: IDTokenClaims? = nil) async throws(AuthError) -> IDTokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
            let header = OAuthJSON.decode(JOSEHeader.self, headerBytes)
        else { throw Self.refusal("it is not a signed JWT") }
        guard let algorithm = header.alg?.value, Self.acceptedAlgorithms.contains(algorithm) else {
            throw Self.refusal("its signature algorithm is not accepted")
        }
        // RFC 7515 §4.1.11: extensions marked critical must be understood; this verifier knows none.
        guard !header.namesCritical else { throw Self.refusal("it names critical header extensions") }
        let kid = header.kid?.value
        // A key that names its algorithm signs with that one only (RFC 7517 §4.4).
        let fitting = try await keys(for: kid).enumerated().filter { $0.element.algorithm.map { $0.rawValue == algorithm } ?? true }
        guard !fitting.isEmpty else { throw Self.refusal("its algorithm is not the one of its key") }
        try await checkSignature(token, keys: fitting.map { (KeyPosition(kid: kid ?? Self.anonymousKid, index: $0.offset), $0.element) })
        guard let claims = IDTokenClaims(payload: payload) else { throw Self.refusal("a required claim is missing or unusable") }
        try check(claims, nonce: nonce, previous: previous)
        return claims
    }

    /// Accepts the signature when one of `keys` verifies it, each with a collection holding
    /// that key alone (made once per key and kept).
    private func checkSignature(_ token: String, keys: [(KeyPosition, JWK)]) async throws(AuthError) {
        for (position, key) in keys {
            do {
                let collection: JWTKeyCollection
                if let kept = collections[position] {
                    collection = kept
                } else {
                    collection = try await JWTKeyCollection().add(jwk: key, isDefault: true)
                    collections[position] = collection
                }
                _ = try await collection.verify(token, as: SignatureOnly.self)
                return
            } catch {
                continue
            }
        }
        throw Self.refusal("its signature does not verify")
    }

    private func check(_ claims: IDTokenClaims, nonce: String?, previous: IDTokenClaims?) throws(AuthError) {
        guard claims.issuer == issuer else { throw Self.refusal("it was issued by another issuer") }
        guard claims.audiences.contains(clientID) else { throw Self.refusal("it is meant for another client (aud)") }
        if claims.audiences.count > 1 || claims.authorizedParty != nil {
            guard claims.authorizedParty == clientID else { throw Self.refusal("it was issued to another party (azp)") }
        }
        let now = clock.now()
        guard now.timeIntervalSince(claims.expiresAt) < skew else { throw Self.refusal("it has expired") }
        guard claims.issuedAt.timeIntervalSince(now) <= skew else { throw Self.refusal("it was issued in the future (iat)") }
        if let nonce {
            guard claims.nonce == nonce else { throw Self.refusal("its nonce is not this sign-in's") }
        }
        if let previous { try Self.checkContinuity(claims, previous: previous) }
    }

    /// Core §12.2: the ID token of a refresh names the same issuer, user and audience as the
    /// session's (and, when both carry one, the same nonce). `.authentication` otherwise.
    public static func checkContinuity(_ claims: IDTokenClaims, previous: IDTokenClaims) throws(AuthError) {
        guard claims.issuer == previous.issuer, claims.subject == previous.subject,
            Set(claims.audiences) == Set(previous.audiences)
        else { throw refusal("it names another user or audience than the session's") }
        if let earlier = previous.nonce, let now = claims.nonce, earlier != now {
            throw refusal("its nonce differs from the session's")
        }
    }

    /// The keys published as `kid` (or the only key, for a token without `kid`), fetching
    /// the JWKS when none is kept or, once, when the kept one lacks it. Never empty.
    private func keys(for kid: String?) async throws(AuthError) -> [JWK] {
        if keys == nil { try await fetch() }
        if let found = lookup(kid) { return found }
        try await fetch()
        if let found = lookup(kid) { return found }
        throw Self.refusal("it is signed by a key the provider does not publish")
    }

    private func lookup(_ kid: String?) -> [JWK]? {
        guard let kid else { return anonymousKey.map { [$0] } }
        return keys?[kid]
    }

    private func fetch() async throws(AuthError) {
        fetches += 1
        try URLPolicy.check(jwksURL)
        let (response, body) = try await transport.send(
            HTTPRequest(method: .get, url: jwksURL, headerFields: [.accept: "application/json"]), timeout: timeout)
        guard response.status.kind == .successful else {
            throw .server(status: response.status.code, message: "the provider's JWKS could not be read")
        }
        guard let published = OAuthJSON.decode(PublishedKeySet.self, body) else {
            throw .server(status: response.status.code, message: "the provider's JWKS is not a key set")
        }
        var found: [String: [JWK]] = [:]
        var usable: [JWK] = []
        for entry in published.keys {
            // Keys of types this verifier cannot use (encryption keys, unknown types) are
            // skipped; so is anything that is not a JSON object at all.
            guard case .value(let key) = entry, var jwk = key.jwk, key.isForSignatures else { continue }
            usable.append(jwk)
            if let kid = jwk.keyIdentifier?.string {
                found[kid, default: []].append(jwk)
            } else {
                // jwt-kit keeps keys by id: a key published without one gets a name of ours.
                jwk.keyIdentifier = JWKIdentifier(string: Self.anonymousKid)
                usable[usable.count - 1] = jwk
            }
        }
        keys = found
        collections = [:]
        anonymousKey = usable.count == 1 ? usable.first : nil
    }

    /// The id given to a published key that has none (used only for tokens without `kid`).
    static let anonymousKid = "vault:anonymous-key"

    static func refusal(_ why: String) -> AuthError {
        .authentication("the ID token was refused: \(why)", providerCode: nil)
    }
}

/// A payload type for the signature check alone; the claims are read and checked apart.
private struct SignatureOnly: JWTPayload {
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
    func verify(using algorithm: some JWTAlgorithm) throws {}
}

/// The members of a JWS header the verifier reads (RFC 7515 §4.1). `crit` counts when
/// present at all, whatever its value.
private struct JOSEHeader: Decodable {
    let alg: Loose<String>?
    let kid: Loose<String>?
    let namesCritical: Bool

    enum CodingKeys: String, CodingKey {
        case alg, kid, crit
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        alg = container.looseIfPresent(forKey: .alg)
        kid = container.looseIfPresent(forKey: .kid)
        namesCritical = container.contains(.crit)
    }
}

/// A JWK Set (RFC 7517 §5): `keys` must be an array; each member that is not a JSON object
/// is `.other` and skipped.
private struct PublishedKeySet: Decodable {
    let keys: [Loose<PublishedKey>]
}

/// One member of a JWK Set: the key as jwt-kit reads it (nil when it cannot), and whether
/// `use` allows signatures (absent, or exactly "sig").
private struct PublishedKey: Decodable, Sendable {
    let jwk: JWK?
    let isForSignatures: Bool

    enum CodingKeys: String, CodingKey {
        case use
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        jwk = try? JWK(from: decoder)
        isForSignatures = container.looseIfPresent(String.self, forKey: .use).map { $0.value == "sig" } ?? true
    }
}
