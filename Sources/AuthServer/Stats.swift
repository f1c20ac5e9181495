// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultSync

/// The counters served by `GET /api/stats` (all start at zero).
///
/// The JSON API, the OAuth token endpoint and Sign in with Apple's (`/apple/auth/...`) feed
/// the shared counters: a password grant counts as a login, a refresh_token grant as a refresh.
public struct AuthServerStats: Codable, Sendable, Equatable {
    /// Successful `POST /api/register`.
    public var registrations = 0
    /// Successful logins (`/api/login` and OAuth password grants).
    public var logins = 0
    /// Rejected logins: wrong login or password (`/api/login` and OAuth password grants).
    public var failedLogins = 0
    /// Successful refreshes (`/api/refresh_tokens`, OAuth and Apple refresh_token grants).
    public var refreshes = 0
    /// Refreshes rejected because the refresh token was invalid, used, revoked or expired.
    public var failedRefreshes = 0
    /// Every refresh request (OAuth and Apple: once the client is authenticated), including
    /// faulted and rejected ones.
    public var refreshAttempts = 0
    /// Refresh requests answered by an injected fault (see ``RefreshFaults``).
    public var faultedRefreshes = 0
    /// `GET /api/get_devs` requests with an accepted access token.
    public var authorized = 0
    /// `GET /api/get_devs` requests rejected with 401.
    public var unauthorized = 0
    /// Tokens issued by `POST /oauth/token` (any grant).
    public var oauthTokens = 0
    /// Error replies of `POST /oauth/token` (any RFC 6749 §5.2 error).
    public var oauthFailures = 0
    /// Authorization codes issued by `POST /oauth/authorize` (the user allowed).
    public var authorizations = 0
    /// Authorization or device requests the user denied.
    public var authorizationDenials = 0
    /// Authorization codes exchanged for tokens at `POST /oauth/token` or `POST /apple/auth/token`.
    public var codeExchanges = 0
    /// Device codes issued by `POST /oauth/device_authorization`.
    public var deviceAuthorizations = 0
    /// Device-code polls of `POST /oauth/token` (any answer).
    public var devicePolls = 0
    /// Accepted `POST /oauth/revoke` and `POST /apple/auth/revoke` requests (known or unknown token).
    public var revocations = 0
    /// ID tokens issued (any grant, OpenID Connect and Apple).
    public var idTokens = 0
    /// `GET /oauth/jwks` and `GET /apple/auth/keys` requests.
    public var jwksFetches = 0

    /// All counters at zero.
    public init() {}
}

/// Thread-safe holder of the live ``AuthServerStats``.
final class StatsRecorder: Sendable {
    private let counters = Locked(AuthServerStats())

    /// Adds one to a counter.
    func increment(_ counter: WritableKeyPath<AuthServerStats, Int> & Sendable) {
        counters.withLock { $0[keyPath: counter] += 1 }
    }

    /// A copy of the counters now.
    func snapshot() -> AuthServerStats {
        counters.withLock { $0 }
    }

    /// Sets every counter back to zero.
    func reset() {
        counters.withLock { $0 = AuthServerStats() }
    }
}
