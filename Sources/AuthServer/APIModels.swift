// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// `{"login","password"}`: the body of `POST /api/register` and `POST /api/login`.
public struct AuthBody: Codable, Sendable, Equatable {
    /// The user's login.
    public var login: String
    /// The user's password.
    public var password: String

    /// Creates a body.
    public init(login: String, password: String) {
        self.login = login
        self.password = password
    }
}

/// `{"id","accessToken","accessTokenExpire","refreshToken","refreshTokenExpire"}`: the reply
/// to register and login. Expiries are absolute Unix times in milliseconds.
public struct User: Codable, Sendable, Equatable {
    /// The user's numeric id.
    public var id: Int64
    /// A signed JWT access token.
    public var accessToken: String
    /// When ``accessToken`` expires, Unix milliseconds.
    public var accessTokenExpire: Int64
    /// A signed JWT refresh token (single use).
    public var refreshToken: String
    /// When ``refreshToken`` expires, Unix milliseconds.
    public var refreshTokenExpire: Int64

    /// Creates a user reply.
    public init(id: Int64, accessToken: String, accessTokenExpire: Int64, refreshToken: String, refreshTokenExpire: Int64) {
        self.id = id
        self.accessToken = accessToken
        self.accessTokenExpire = accessTokenExpire
        self.refreshToken = refreshToken
        self.refreshTokenExpire = refreshTokenExpire
    }
}

/// `{"accessToken","accessTokenExpire","refreshToken","refreshTokenExpire"}`: the reply to
/// `POST /api/refresh_tokens`. Expiries are absolute Unix times in milliseconds.
public struct TokensInfo: Codable, Sendable, Equatable {
    /// A signed JWT access token.
    public var accessToken: String
    /// When ``accessToken`` expires, Unix milliseconds.
    public var accessTokenExpire: Int64
    /// A signed JWT refresh token (single use).
    public var refreshToken: String
    /// When ``refreshToken`` expires, Unix milliseconds.
    public var refreshTokenExpire: Int64

    /// Creates a token pair reply.
    public init(accessToken: String, accessTokenExpire: Int64, refreshToken: String, refreshTokenExpire: Int64) {
        self.accessToken = accessToken
        self.accessTokenExpire = accessTokenExpire
        self.refreshToken = refreshToken
        self.refreshTokenExpire = refreshTokenExpire
    }
}

/// `{"id","name","department"}`: one element of the `GET /api/get_devs` reply.
public struct Developer: Codable, Sendable, Equatable {
    /// The developer's id.
    public var id: Int64
    /// The developer's name.
    public var name: String
    /// The developer's department.
    public var department: String

    /// Creates a developer.
    public init(id: Int64, name: String, department: String) {
        self.id = id
        self.name = name
        self.department = department
    }
}

/// `{"code","message"}`: the body of every non-2xx reply of the `/api/...` endpoints.
///
/// `code` repeats the HTTP status; `message` is one of ``AuthServerMessages``.
public struct ErrorResponse: Codable, Sendable, Equatable, Error {
    /// The HTTP status code.
    public var code: Int
    /// A stable message, see ``AuthServerMessages``.
    public var message: String

    /// Creates an error body.
    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }
}
