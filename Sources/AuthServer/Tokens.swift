// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto
import Foundation
import JWTKit

/// Whether a JWT is an access or a refresh token (claim `token_type`).
enum TokenKind: String, Codable, Sendable {
    case access
    case refresh
}

/// Who a token speaks for (claim `principal`): a user (`sub` = user id) or an OAuth client
/// authenticated by the client_credentials grant (`sub` = client id).
enum TokenPrincipal: String, Codable, Sendable {
    case user
    case client
}

/// The claims of every token this server signs.
struct TokenClaims: JWTPayload, Equatable {
    enum CodingKeys: String, CodingKey {
        case subject = "sub"
        case expiration = "exp"
        case issuedAt = "iat"
        case id = "jti"
        case kind = "token_type"
        case principal
        case generation = "gen"
        case clientID = "client_id"
        case scope
    }

    /// User id (decimal) or client id, see ``principal``.
    var subject: SubjectClaim
    /// Expiry (seconds with a millisecond fraction).
    var expiration: ExpirationClaim
    /// Issue time.
    var issuedAt: IssuedAtClaim
    /// Unique token id.
    var id: IDClaim
    /// Access or refresh.
    var kind: TokenKind
    /// User or client.
    var principal: TokenPrincipal
    /// The user's access-token generation at issue time (bumped to revoke access tokens).
    var generation: Int
    /// The OAuth client the token was issued to; `nil` for the `/api` endpoints.
    var clientID: String?
    /// Granted OAuth scope, if any.
    var scope: String?

    /// Expiry in Unix milliseconds.
    var expiresAtMillis: Int64 {
        Int64((expiration.value.timeIntervalSince1970 * 1000).rounded())
    }

    /// Claims are checked by ``TokenService/decode(_:as:)`` so it can tell "expired" from
    /// "invalid"; the JWT library only checks the signature.
    func verify(using algorithm: some JWTAlgorithm) throws {}
}

/// What ``TokenService/decode(_:as:)`` concluded about a presented token.
enum TokenCheck: Sendable {
    /// Signature good, kind right, not expired.
    case valid(TokenClaims)
    /// Signature good and kind right, but past its expiry.
    case expired(TokenClaims)
    /// Malformed, badly signed, or of the other kind.
    case invalid
}

/// A freshly signed token and its expiry.
struct SignedToken: Sendable {
    /// The compact JWT.
    let token: String
    /// Expiry, Unix milliseconds.
    let expiresAtMillis: Int64
    /// The token's `jti`.
    let id: String
}

/// Signs and checks HS256 JWTs with a random key made for this server instance.
final class TokenService: Sendable {
    private let keys: JWTKeyCollection

    private init(keys: JWTKeyCollection) {
        self.keys = keys
    }

    /// A service with a fresh random 256-bit HMAC key.
    static func make() async -> TokenService {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(key: SymmetricKey(size: .bits256)), digestAlgorithm: .sha256)
        return TokenService(keys: keys)
    }

    /// Signs a token of `kind` for `subject`, issued at `nowMillis`, expiring at `expiresAtMillis`.
    func sign(
        kind: TokenKind,
        principal: TokenPrincipal,
        subject: String,
        generation: Int,
        clientID: String?,
        scope: String?,
        expiresAtMillis: Int64,
        nowMillis: Int64,
        id: String = UUID().uuidString
    ) async throws -> SignedToken {
        let claims = TokenClaims(
            subject: SubjectClaim(value: subject),
            expiration: ExpirationClaim(value: Date(timeIntervalSince1970: Double(expiresAtMillis) / 1000)),
            issuedAt: IssuedAtClaim(value: Date(timeIntervalSince1970: Double(nowMillis) / 1000)),
            id: IDClaim(value: id),
            kind: kind,
            principal: principal,
            generation: generation,
            clientID: clientID,
            scope: scope
        )
        let token = try await keys.sign(claims)
        return SignedToken(token: token, expiresAtMillis: expiresAtMillis, id: id)
    }

    /// Checks signature, kind and expiry of `token`.
    func decode(_ token: String, as kind: TokenKind, now: Date = Date()) async -> TokenCheck {
        guard !token.isEmpty, token.utf8.count <= 8 * 1024 else { return .invalid }
        let claims: TokenClaims
        do {
            claims = try await keys.verify(token, as: TokenClaims.self)
        } catch {
            return .invalid
        }
        guard claims.kind == kind else { return .invalid }
        guard WallClock.millis(now) < claims.expiresAtMillis else { return .expired(claims) }
        return .valid(claims)
    }
}

/// Wall-clock helpers.
enum WallClock {
    /// `date` as Unix milliseconds.
    static func millis(_ date: Date = Date()) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }
}
