// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

public import Logging

/// A `NAME:SECRET` pair: a pre-registered user (`login:password`) or an OAuth client
/// (`client_id:client_secret`).
public struct CredentialPair: Sendable, Hashable {
    /// The login or client id.
    public var name: String
    /// The password or client secret.
    public var secret: String

    /// Creates a pair from its two parts.
    public init(name: String, secret: String) {
        self.name = name
        self.secret = secret
    }

    /// Parses `NAME:SECRET`, splitting at the FIRST colon (so the secret may contain colons).
    ///
    /// Returns `nil` when there is no colon or either part is empty.
    public init?(parsing text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let name = String(text[..<colon])
        let secret = String(text[text.index(after: colon)...])
        guard !name.isEmpty, !secret.isEmpty else { return nil }
        self.init(name: name, secret: secret)
    }
}

/// Everything a ``ReferenceAuthServer`` needs to know before it starts.
public struct AuthServerConfiguration: Sendable {
    /// The address to bind, default `127.0.0.1`.
    public var host: String
    /// The TCP port to bind; `0` picks an ephemeral port (see ``ReferenceAuthServer/start()``).
    public var port: Int
    /// Lifetime of access tokens in seconds (default 60). Fractions are allowed (tests).
    public var accessTokenLifetime: Double
    /// Lifetime of refresh tokens in seconds (default 300). Fractions are allowed (tests).
    public var refreshTokenLifetime: Double
    /// The idle timeout of refresh tokens in seconds, as Keycloak's SSO Session Idle: a
    /// refresh token unused for longer is dead, refused as an expired one is (each refresh
    /// rotates the token, and the new one's clock starts at its issue). When set, OAuth token
    /// responses carry `refresh_expires_in`, and the `/api` replies' `refreshTokenExpire` is
    /// the earlier of the absolute and the idle expiry. `nil` (the default): no idle timeout.
    public var refreshTokenIdleLifetime: Double?
    /// Users registered at start-up (`login`, `password`).
    public var users: [CredentialPair]
    /// OAuth clients accepted by `POST /oauth/token` (`client_id`, `client_secret`).
    public var clients: [CredentialPair]
    /// Serves the `POST /api/test/...` control endpoints when `true` (never in production).
    public var testControls: Bool
    /// The largest request body accepted, in bytes (default 64 KiB); larger bodies get 400.
    public var maxBodySize: Int
    /// PBKDF2-HMAC-SHA256 iteration count for stored password hashes (default 1000:
    /// deliberately cheap, this is a test server).
    public var passwordHashIterations: Int
    /// Log level of the server's logger (default `.warning`); logs go to stderr and never
    /// contain tokens or passwords.
    public var logLevel: Logger.Level
    /// Public OAuth clients (RFC 6749 §2.1): ids without a secret, which authenticate by
    /// `client_id` alone and must use PKCE S256 at `GET /oauth/authorize`.
    public var publicClients: [String]
    /// Lifetime of authorization codes in seconds (default 60).
    public var authorizationCodeLifetime: Double
    /// Lifetime of device codes in seconds (RFC 8628 `expires_in`, default 300).
    public var deviceCodeLifetime: Double
    /// The minimum polling interval of the device grant in seconds (RFC 8628 `interval`, default 5).
    public var deviceInterval: Double
    /// What a `slow_down` adds to a device code's interval, in seconds (RFC 8628 §3.5: 5).
    public var deviceSlowDownIncrement: Double
    /// When `true`, an expired device code keeps answering `authorization_pending` instead of
    /// `expired_token` (as some real servers do; tests only).
    public var devicePendingAfterExpiry: Bool
    /// The issuer named in the discovery metadata instead of the server's own base URL;
    /// `nil` (the default) names the base URL. Tests set it to play an issuer mismatch.
    public var issuerOverride: String?
    /// Sign in with Apple clients served under `/apple` (token, keys and revocation endpoints);
    /// without any, those paths answer 404.
    public var appleClients: [AppleClient]

    /// Creates a configuration; every parameter has the documented default.
    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        accessTokenLifetime: Double = 60,
        refreshTokenLifetime: Double = 300,
        users: [CredentialPair] = [],
        clients: [CredentialPair] = [],
        testControls: Bool = false,
        maxBodySize: Int = 64 * 1024,
        passwordHashIterations: Int = 1000,
        logLevel: Logger.Level = .warning,
        publicClients: [String] = [],
        authorizationCodeLifetime: Double = 60,
        deviceCodeLifetime: Double = 300,
        deviceInterval: Double = 5,
        deviceSlowDownIncrement: Double = 5,
        devicePendingAfterExpiry: Bool = false,
        issuerOverride: String? = nil,
        appleClients: [AppleClient] = [],
        refreshTokenIdleLifetime: Double? = nil
    ) {
        self.host = host
        self.port = port
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.users = users
        self.clients = clients
        self.testControls = testControls
        self.maxBodySize = maxBodySize
        self.passwordHashIterations = passwordHashIterations
        self.logLevel = logLevel
        self.publicClients = publicClients
        self.authorizationCodeLifetime = authorizationCodeLifetime
        self.deviceCodeLifetime = deviceCodeLifetime
        self.deviceInterval = deviceInterval
        self.deviceSlowDownIncrement = deviceSlowDownIncrement
        self.devicePendingAfterExpiry = devicePendingAfterExpiry
        self.issuerOverride = issuerOverride
        self.appleClients = appleClients
        self.refreshTokenIdleLifetime = refreshTokenIdleLifetime
    }

    /// Checks the values that would make the server misbehave; throws
    /// ``AuthServerConfigurationError`` describing the first problem.
    public func validate() throws {
        guard (0...65535).contains(port) else {
            throw AuthServerConfigurationError("port must be between 0 and 65535")
        }
        guard accessTokenLifetime.isFinite, accessTokenLifetime > 0 else {
            throw AuthServerConfigurationError("access token lifetime must be positive")
        }
        guard refreshTokenLifetime.isFinite, refreshTokenLifetime > 0 else {
            throw AuthServerConfigurationError("refresh token lifetime must be positive")
        }
        if let idle = refreshTokenIdleLifetime, !(idle.isFinite && idle > 0) {
            throw AuthServerConfigurationError("refresh token idle lifetime must be positive")
        }
        guard maxBodySize > 0 else {
            throw AuthServerConfigurationError("maximum body size must be positive")
        }
        guard passwordHashIterations >= 1 else {
            throw AuthServerConfigurationError("password hash iterations must be at least 1")
        }
        for (name, value) in [
            ("authorization code lifetime", authorizationCodeLifetime), ("device code lifetime", deviceCodeLifetime),
            ("device interval", deviceInterval),
        ] {
            guard value.isFinite, value > 0 else { throw AuthServerConfigurationError("\(name) must be positive") }
        }
        guard deviceSlowDownIncrement.isFinite, deviceSlowDownIncrement >= 0 else {
            throw AuthServerConfigurationError("slow_down increment must not be negative")
        }
        guard publicClients.allSatisfy({ !$0.isEmpty }) else {
            throw AuthServerConfigurationError("public client ids must not be empty")
        }
        guard !host.isEmpty else {
            throw AuthServerConfigurationError("host must not be empty")
        }
        for client in appleClients { try client.validate() }
        guard Set(appleClients.map(\.clientID)).count == appleClients.count else {
            throw AuthServerConfigurationError("apple client ids must be unique")
        }
    }
}

/// A configuration value that cannot work.
public struct AuthServerConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, in words.
    public let description: String

    /// Creates the error with its description.
    public init(_ description: String) {
        self.description = description
    }
}
