// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// Why an authentication operation failed; each case maps to a stable message and status.
enum AuthFailure: Error, Sendable, Equatable {
    case wrongLoginOrPassword
    case invalidAccessToken
    case accessTokenExpired
    case invalidRefreshToken
    case refreshTokenExpired
    case loginAlreadyExists
    case invalidScope
    case internalError

    /// The ``AuthServerMessages`` string for this failure.
    var message: String {
        switch self {
        case .wrongLoginOrPassword: AuthServerMessages.wrongLoginOrPassword
        case .invalidAccessToken: AuthServerMessages.invalidAccessToken
        case .accessTokenExpired: AuthServerMessages.accessTokenExpired
        case .invalidRefreshToken: AuthServerMessages.invalidRefreshToken
        case .refreshTokenExpired: AuthServerMessages.refreshTokenExpired
        case .loginAlreadyExists: AuthServerMessages.loginAlreadyExists
        case .invalidScope: "requested scope exceeds the granted scope"
        case .internalError: AuthServerMessages.internalError
        }
    }

    /// The HTTP status for the `/api` endpoints.
    var status: Int {
        switch self {
        case .wrongLoginOrPassword, .invalidAccessToken, .accessTokenExpired, .invalidRefreshToken, .refreshTokenExpired:
            401
        case .loginAlreadyExists: 409
        case .invalidScope: 400
        case .internalError: 500
        }
    }
}

/// An access token, and for users a refresh token, just issued.
struct IssuedTokens: Sendable {
    /// The user they were issued to (`nil` for client_credentials).
    let user: UserIdentity?
    /// The access token.
    let access: SignedToken
    /// The refresh token (`nil` for client_credentials).
    let refresh: SignedToken?
    /// The granted scope.
    let scope: String?

    /// The `/api` reply for register and login.
    var apiUser: User? {
        guard let user, let refresh else { return nil }
        return User(
            id: user.id, accessToken: access.token, accessTokenExpire: access.expiresAtMillis,
            refreshToken: refresh.token, refreshTokenExpire: refresh.expiresAtMillis)
    }

    /// The `/api/refresh_tokens` reply.
    var apiTokens: TokensInfo? {
        guard let refresh else { return nil }
        return TokensInfo(
            accessToken: access.token, accessTokenExpire: access.expiresAtMillis,
            refreshToken: refresh.token, refreshTokenExpire: refresh.expiresAtMillis)
    }
}

/// The server's rules, independent of HTTP: registration, login, refresh with rotation,
/// access-token checks, OAuth client tokens. Updates the shared stats counters for logins,
/// refreshes and authorizations.
final class AuthService: Sendable {
    let users: UserDirectory
    let clients: ClientDirectory
    let stats: StatsRecorder
    private let tokens: TokenService
    private let accessLifetimeMillis: Int64
    private let refreshLifetimeMillis: Int64

    init(configuration: AuthServerConfiguration, users: UserDirectory, stats: StatsRecorder, tokens: TokenService) {
        self.users = users
        self.clients = ClientDirectory(clients: configuration.clients, iterations: configuration.passwordHashIterations)
        self.stats = stats
        self.tokens = tokens
        self.accessLifetimeMillis = max(1, Int64((configuration.accessTokenLifetime * 1000).rounded()))
        self.refreshLifetimeMillis = max(1, Int64((configuration.refreshTokenLifetime * 1000).rounded()))
    }

    /// Registers a user and logs them in.
    func register(login: String, password: String) async -> Result<IssuedTokens, AuthFailure> {
        guard let user = users.register(login: login, password: password) else {
            return .failure(.loginAlreadyExists)
        }
        stats.increment(\.registrations)
        return await issue(to: user, clientID: nil, scope: nil)
    }

    /// Checks the password and issues a token pair (`clientID`/`scope` for OAuth).
    func login(login: String, password: String, clientID: String?, scope: String?) async -> Result<IssuedTokens, AuthFailure> {
        guard let user = users.authenticate(login: login, password: password) else {
            stats.increment(\.failedLogins)
            return .failure(.wrongLoginOrPassword)
        }
        let result = await issue(to: user, clientID: clientID, scope: scope)
        if case .success = result { stats.increment(\.logins) }
        return result
    }

    /// Rotates a refresh token: the presented one dies, a new pair is issued. The token must
    /// have been issued through the same channel (`clientID` `nil` for `/api`).
    func refresh(token: String, clientID: String?, requestedScope: String?) async -> Result<IssuedTokens, AuthFailure> {
        let result = await rotate(token: token, clientID: clientID, requestedScope: requestedScope)
        switch result {
        case .success: stats.increment(\.refreshes)
        case .failure(let failure) where failure != .internalError && failure != .invalidScope:
            stats.increment(\.failedRefreshes)
        case .failure: break
        }
        return result
    }

    /// Checks an access token (any channel); counts `authorized`/`unauthorized`.
    func authorize(accessToken: String) async -> Result<TokenClaims, AuthFailure> {
        let result = await checkAccess(accessToken)
        stats.increment((try? result.get()) != nil ? \.authorized : \.unauthorized)
        return result
    }

    /// Issues a client_credentials access token (no refresh token).
    func issueClientToken(clientID: String, scope: String?) async -> Result<IssuedTokens, AuthFailure> {
        let now = WallClock.millis()
        do {
            let access = try await tokens.sign(
                kind: .access, principal: .client, subject: clientID, generation: 0, clientID: clientID,
                scope: scope, expiresAtMillis: now + accessLifetimeMillis, nowMillis: now)
            return .success(IssuedTokens(user: nil, access: access, refresh: nil, scope: scope))
        } catch {
            return .failure(.internalError)
        }
    }

    private func issue(to user: UserIdentity, clientID: String?, scope: String?) async -> Result<IssuedTokens, AuthFailure> {
        let now = WallClock.millis()
        do {
            let access = try await signAccess(for: user, clientID: clientID, scope: scope, now: now)
            let refresh = try await tokens.sign(
                kind: .refresh, principal: .user, subject: String(user.id), generation: user.generation,
                clientID: clientID, scope: scope, expiresAtMillis: now + refreshLifetimeMillis, nowMillis: now)
            users.addRefreshToken(userID: user.id, tokenID: refresh.id, expiresAtMillis: refresh.expiresAtMillis, now: now)
            return .success(IssuedTokens(user: user, access: access, refresh: refresh, scope: scope))
        } catch {
            return .failure(.internalError)
        }
    }

    private func signAccess(for user: UserIdentity, clientID: String?, scope: String?, now: Int64) async throws -> SignedToken {
        try await tokens.sign(
            kind: .access, principal: .user, subject: String(user.id), generation: user.generation,
            clientID: clientID, scope: scope, expiresAtMillis: now + accessLifetimeMillis, nowMillis: now)
    }

    private func rotate(token: String, clientID: String?, requestedScope: String?) async -> Result<IssuedTokens, AuthFailure> {
        let claims: TokenClaims
        switch await tokens.decode(token, as: .refresh) {
        case .valid(let valid): claims = valid
        case .expired: return .failure(.refreshTokenExpired)
        case .invalid: return .failure(.invalidRefreshToken)
        }
        guard claims.principal == .user, claims.clientID == clientID, let userID = Int64(claims.subject.value) else {
            return .failure(.invalidRefreshToken)
        }
        var scope = claims.scope
        if let requestedScope {
            let granted = Set((claims.scope ?? "").split(separator: " "))
            guard Set(requestedScope.split(separator: " ")).isSubset(of: granted) else { return .failure(.invalidScope) }
            scope = requestedScope
        }
        let now = WallClock.millis()
        let newID = UUID().uuidString
        let newExpiry = now + refreshLifetimeMillis
        guard
            case .rotated(let user) = users.rotate(
                userID: userID, oldID: claims.id.value, newID: newID, newExpiresAtMillis: newExpiry, now: now)
        else {
            return .failure(.invalidRefreshToken)
        }
        do {
            let access = try await signAccess(for: user, clientID: clientID, scope: scope, now: now)
            let refresh = try await tokens.sign(
                kind: .refresh, principal: .user, subject: String(user.id), generation: user.generation,
                clientID: clientID, scope: scope, expiresAtMillis: newExpiry, nowMillis: now, id: newID)
            return .success(IssuedTokens(user: user, access: access, refresh: refresh, scope: scope))
        } catch {
            return .failure(.internalError)
        }
    }

    private func checkAccess(_ token: String) async -> Result<TokenClaims, AuthFailure> {
        let claims: TokenClaims
        switch await tokens.decode(token, as: .access) {
        case .valid(let valid): claims = valid
        case .expired: return .failure(.accessTokenExpired)
        case .invalid: return .failure(.invalidAccessToken)
        }
        switch claims.principal {
        case .user:
            guard let id = Int64(claims.subject.value), users.acceptsAccessToken(userID: id, generation: claims.generation) else {
                return .failure(.invalidAccessToken)
            }
        case .client:
            guard clients.contains(claims.subject.value) else { return .failure(.invalidAccessToken) }
        }
        return .success(claims)
    }
}
