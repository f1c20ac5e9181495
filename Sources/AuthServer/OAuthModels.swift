// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// RFC 6749 §5.2 error codes used by `POST /oauth/token`.
public enum OAuthErrorCode: String, Codable, Sendable {
    /// Missing or repeated parameter, wrong content type, unreadable body (400).
    case invalidRequest = "invalid_request"
    /// Client authentication failed or was missing (401, with `WWW-Authenticate`).
    case invalidClient = "invalid_client"
    /// Wrong username/password, or an invalid, expired, used or foreign refresh token (400).
    case invalidGrant = "invalid_grant"
    /// The client may not use this grant (400).
    case unauthorizedClient = "unauthorized_client"
    /// `grant_type` is not password, refresh_token or client_credentials (400).
    case unsupportedGrantType = "unsupported_grant_type"
    /// A refresh asked for more scope than was granted (400).
    case invalidScope = "invalid_scope"
    /// The server failed or a fault was injected (500).
    case serverError = "server_error"
    /// Device grant: the user has not answered yet (RFC 8628 §3.5, 400).
    case authorizationPending = "authorization_pending"
    /// Device grant: polled faster than the interval, which grows by 5 s (400).
    case slowDown = "slow_down"
    /// The user denied the request (400 at the token endpoint; also in redirects).
    case accessDenied = "access_denied"
    /// Device grant: the device code expired (400).
    case expiredToken = "expired_token"
    /// `GET /oauth/authorize` with a `response_type` other than `code` (in the redirect).
    case unsupportedResponseType = "unsupported_response_type"
}

/// `{"error","error_description"}`: an RFC 6749 §5.2 error reply.
public struct OAuthError: Codable, Sendable, Equatable, Error {
    enum CodingKeys: String, CodingKey {
        case error
        case description = "error_description"
    }

    /// The error code.
    public var error: OAuthErrorCode
    /// Human-readable detail; for invalid_grant it is one of ``AuthServerMessages``
    /// (e.g. `"wrong login or password"`, `"invalid refresh token"`, `"refresh token expired"`).
    public var description: String?

    /// Creates an error reply.
    public init(error: OAuthErrorCode, description: String?) {
        self.error = error
        self.description = description
    }
}

/// `{"access_token","token_type","expires_in","refresh_token"?,"refresh_expires_in"?,"scope"?}`:
/// an RFC 6749 §5.1 success reply. `expires_in` is relative, in whole seconds (rounded up);
/// so is `refresh_expires_in` (Keycloak's field), sent only when the server has a refresh
/// idle timeout (``AuthServerConfiguration/refreshTokenIdleLifetime``).
public struct OAuthTokenResponse: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case refreshExpiresIn = "refresh_expires_in"
        case scope
        case idToken = "id_token"
    }

    /// The access token (also accepted by `GET /api/get_devs`).
    public var accessToken: String
    /// Always `"Bearer"`.
    public var tokenType: String
    /// Seconds until the access token expires.
    public var expiresIn: Int
    /// The single-use refresh token; absent for client_credentials.
    public var refreshToken: String?
    /// Seconds until the refresh token dies (the earlier of its expiry and its idle
    /// deadline); absent without an idle timeout or a refresh token.
    public var refreshExpiresIn: Int?
    /// The granted scope, when one was requested.
    public var scope: String?
    /// The OpenID Connect ID token (ES256, see ``IDTokenClaims``) when the scope has `openid`.
    public var idToken: String?

    /// Creates a success reply.
    public init(
        accessToken: String, tokenType: String = "Bearer", expiresIn: Int, refreshToken: String?, scope: String?,
        idToken: String? = nil, refreshExpiresIn: Int? = nil
    ) {
        self.idToken = idToken
        self.refreshExpiresIn = refreshExpiresIn
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.scope = scope
    }
}
