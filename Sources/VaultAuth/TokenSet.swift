// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

/// The tokens of one account: an access token, a refresh token, and when each expires,
/// on the local clock (already corrected for the server's clock, see `ClockSkew`).
///
/// Tokens never print themselves: `description` shows expiries only.
public struct TokenSet: Sendable, Equatable, CustomStringConvertible {
    /// The bearer token sent to the resource server; it prints redacted.
    public var accessToken: Secret
    /// When the access token expires, on the local clock.
    public var accessTokenExpiry: Date
    /// The token that buys new tokens, or nil when the server issued none (then only a login helps).
    public var refreshToken: Secret?
    /// When the refresh token expires (local clock); nil when the server did not say, which
    /// ``canRefresh(at:)`` takes as not expired.
    public var refreshTokenExpiry: Date?
    /// When these tokens were received (local clock); with the expiry it gives the lifetime.
    public var obtainedAt: Date
    /// The OpenID Connect ID token, verified before it was kept (``IDTokenVerifier``); nil
    /// when the provider sent none. It prints redacted like the others.
    public var idToken: Secret?

    /// Creates a token set; every date is on the local clock.
    public init(
        accessToken: Secret, accessTokenExpiry: Date, refreshToken: Secret?, refreshTokenExpiry: Date?,
        obtainedAt: Date, idToken: Secret? = nil
    ) {
        self.idToken = idToken
        self.accessToken = accessToken
        self.accessTokenExpiry = accessTokenExpiry
        self.refreshToken = refreshToken
        self.refreshTokenExpiry = refreshTokenExpiry
        self.obtainedAt = obtainedAt
    }

    /// The default refresh leeway: refresh this long before the access token expires.
    public static let defaultLeeway: TimeInterval = 10

    /// `fresh`, `stale` (within the leeway of expiry: refresh before sending) or
    /// `expired`. The leeway is never more than half the token's lifetime, so a
    /// short-lived token is not refreshed on every call.
    public func freshness(at now: Date, leeway: TimeInterval = TokenSet.defaultLeeway) -> TokenFreshness {
        if now >= accessTokenExpiry { return .expired }
        let lifetime = accessTokenExpiry.timeIntervalSince(obtainedAt)
        let effectiveLeeway = min(leeway, max(0, lifetime / 2))
        return now >= accessTokenExpiry.addingTimeInterval(-effectiveLeeway) ? .stale : .fresh
    }

    /// True when a refresh token is present and, as far as we know, not expired.
    public func canRefresh(at now: Date) -> Bool {
        guard refreshToken != nil else { return false }
        guard let refreshTokenExpiry else { return true }
        return now < refreshTokenExpiry
    }

    /// The expiries, with both tokens redacted (`<redacted N bytes>`): safe to log.
    public var description: String {
        "TokenSet(access: \(accessToken) until \(accessTokenExpiry), refresh: \(refreshToken.map { "\($0)" } ?? "none")"
            + "\(refreshTokenExpiry.map { " until \($0)" } ?? ""))"
    }
}

/// How usable an access token is now.
public enum TokenFreshness: Sendable, Equatable {
    /// Send it.
    case fresh
    /// Refresh first: it expires within the leeway.
    case stale
    /// Refresh first: it has expired.
    case expired
}

extension TokenSet {
    /// The stored form: a small JSON document kept as the secret of a `.tokens` item.
    struct Stored: Codable {
        var accessToken: String
        var accessTokenExpiry: Double
        var refreshToken: String?
        var refreshTokenExpiry: Double?
        var obtainedAt: Double
        var idToken: String?
    }

    package func encoded() -> Secret {
        let stored = Stored(
            accessToken: accessToken.utf8String ?? "", accessTokenExpiry: accessTokenExpiry.timeIntervalSince1970,
            refreshToken: refreshToken?.utf8String, refreshTokenExpiry: refreshTokenExpiry?.timeIntervalSince1970,
            obtainedAt: obtainedAt.timeIntervalSince1970, idToken: idToken?.utf8String)
        return Secret(bytes: Array((try? JSONEncoder().encode(stored)) ?? Data()))
    }

    package init?(encoded secret: Secret) {
        guard let stored = try? JSONDecoder().decode(Stored.self, from: Data(secret.bytes)) else { return nil }
        self.init(
            accessToken: Secret(stored.accessToken),
            accessTokenExpiry: Date(timeIntervalSince1970: stored.accessTokenExpiry),
            refreshToken: stored.refreshToken.map { Secret($0) },
            refreshTokenExpiry: stored.refreshTokenExpiry.map { Date(timeIntervalSince1970: $0) },
            obtainedAt: Date(timeIntervalSince1970: stored.obtainedAt), idToken: stored.idToken.map { Secret($0) })
    }
}
