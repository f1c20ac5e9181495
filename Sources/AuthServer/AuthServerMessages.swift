// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The exact `message` strings the reference auth API puts in its `{"code","message"}`
/// error bodies. Clients match on these strings, so they are part of the API and must stay
/// stable. The five 401s say "the credentials or tokens are not good (any more)"; the others
/// are not authentication errors. Which route answers each, and when: docs/reference-server.md,
/// "Error messages".
public enum AuthServerMessages {
    /// Login failed: unknown login or wrong password (401).
    public static let wrongLoginOrPassword = "wrong login or password"
    /// The access token is missing, malformed, badly signed, revoked, or not an access token (401).
    public static let invalidAccessToken = "invalid access token"
    /// The access token was valid but its lifetime is over (401).
    public static let accessTokenExpired = "access token expired"
    /// The refresh token is missing, malformed, badly signed, already used, revoked,
    /// or not a refresh token (401).
    public static let invalidRefreshToken = "invalid refresh token"
    /// The refresh token was valid but its lifetime is over (401).
    public static let refreshTokenExpired = "refresh token expired"

    /// Registration with a login that is taken (409).
    public static let loginAlreadyExists = "login already exists"
    /// The body is not valid JSON or not a JSON object of the expected shape (400).
    public static let malformedJSON = "malformed JSON body"
    /// `login` or `password` is missing or empty (400).
    public static let missingCredentials = "login and password are required"
    /// The request's `Content-Type` is not the one the endpoint accepts (400).
    public static let unsupportedContentType = "unsupported content type"
    /// The request body is larger than ``AuthServerConfiguration/maxBodySize`` (400).
    public static let bodyTooLarge = "request body too large"
    /// No route for this path (404).
    public static let notFound = "not found"
    /// The path exists but not for this method (405).
    public static let methodNotAllowed = "method not allowed"
    /// Something failed on the server, or a fault was injected (500).
    public static let internalError = "internal server error"
}
