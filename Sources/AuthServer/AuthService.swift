// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import JWTKit
import VaultSync

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
    /// The OpenID Connect ID token, for `openid` scopes of OAuth clients.
    var idToken: String? = nil
    /// When the refresh token dies (Unix ms): the earlier of its absolute expiry and its idle
    /// deadline; `nil` without a refresh token.
    var refreshEndsAtMillis: Int64? = nil
    /// Whether OAuth replies state ``refreshEndsAtMillis`` as `refresh_expires_in` (the server
    /// has an idle timeout).
    var statesRefreshLife = false

    /// The `/api` reply for register and login.
    var apiUser: User? {
        guard let user, let refresh else { return nil }
        return User(
            id: user.id, accessToken: access.token, accessTokenExpire: access.expiresAtMillis,
            refreshToken: refresh.token, refreshTokenExpire: refreshEndsAtMillis ?? refresh.expiresAtMillis)
    }

    /// The `/api/refresh_tokens` reply.
    var apiTokens: TokensInfo? {
        guard let refresh else { return nil }
        return TokensInfo(
            accessToken: access.token, accessTokenExpire: access.expiresAtMillis,
            refreshToken: refresh.token, refreshTokenExpire: refreshEndsAtMillis ?? refresh.expiresAtMillis)
    }

    /// `expires_in` at `nowMillis`: the access token's whole seconds left, rounded up, at least 1.
    func expiresIn(nowMillis: Int64) -> Int {
        Int(max(1, (access.expiresAtMillis - nowMillis + 999) / 1000))
    }

    /// `refresh_expires_in` at `nowMillis`: the refresh token's whole seconds left (rounded up
    /// as `expires_in`, at least 1); `nil` unless ``statesRefreshLife`` and there is a refresh token.
    func refreshExpiresIn(nowMillis: Int64) -> Int? {
        guard statesRefreshLife, let end = refreshEndsAtMillis else { return nil }
        return Int(max(1, (end - nowMillis + 999) / 1000))
    }
}

/// The server's rules, independent of HTTP: registration, login, refresh with rotation,
/// access-token checks, OAuth client tokens. Updates the shared stats counters for logins,
/// refreshes and authorizations.
final class AuthService: Sendable {
    let users: UserDirectory
    let clients: ClientDirectory
    let stats: StatsRecorder
    /// The ES256 key that signs ID tokens.
    let signing: SigningKeys
    /// The base URL and issuer.
    let identity: ServerIdentity
    /// A deliberate defect in issued ID tokens (tests of clients' verification).
    let idTokenFault: IDTokenFaultSetting
    private let tokens: TokenService
    /// The life of the access tokens issued from now on, in ms (settable: ``setAccessTokenLifetime(_:)``).
    private let accessLifetime: Locked<Int64>
    private let refreshLifetimeMillis: Int64
    /// The refresh tokens' idle timeout; `nil`: none.
    private let refreshIdleMillis: Int64?
    /// Access tokens revoked by RFC 7009 (`jti` -> expiry, Unix ms).
    private let revokedAccess = Locked([String: Int64]())
    /// Rotations per login, kept only with test controls (`POST /api/test/refresh_log`).
    let refreshLog: RefreshLog

    init(
        configuration: AuthServerConfiguration, users: UserDirectory, stats: StatsRecorder, tokens: TokenService,
        signing: SigningKeys, identity: ServerIdentity, idTokenFault: IDTokenFaultSetting = IDTokenFaultSetting()
    ) {
        self.idTokenFault = idTokenFault
        self.users = users
        self.clients = ClientDirectory(
            clients: configuration.clients, publicClients: configuration.publicClients,
            iterations: configuration.passwordHashIterations)
        self.stats = stats
        self.tokens = tokens
        self.signing = signing
        self.identity = identity
        self.accessLifetime = Locked(max(1, Int64((configuration.accessTokenLifetime * 1000).rounded())))
        self.refreshLifetimeMillis = max(1, Int64((configuration.refreshTokenLifetime * 1000).rounded()))
        self.refreshIdleMillis = configuration.refreshTokenIdleLifetime.map { max(1, Int64(($0 * 1000).rounded())) }
        self.refreshLog = RefreshLog(capacity: configuration.testControls ? 100_000 : 0)
    }

    private var accessLifetimeMillis: Int64 { accessLifetime.withLock { $0 } }

    /// Access tokens issued from now on live `seconds` (at least 1 ms); those issued already keep their expiry.
    func setAccessTokenLifetime(_ seconds: Double) {
        let millis = seconds.isFinite ? max(1, Int64((min(seconds, 86_400 * 366) * 1000).rounded())) : 1
        accessLifetime.withLock { $0 = millis }
    }

    /// The life of a refresh token issued or used at `now` whose absolute expiry is `expiresAtMillis`.
    private func refreshLife(expiresAtMillis: Int64, now: Int64) -> RefreshTokenLife {
        RefreshTokenLife(expiresAtMillis: expiresAtMillis, idleDeadlineMillis: refreshIdleMillis.map { now + $0 } ?? expiresAtMillis)
    }

    /// `tokens` with the refresh token's end, `life`, for the replies.
    private func stating(_ life: RefreshTokenLife, in tokens: IssuedTokens) -> IssuedTokens {
        var tokens = tokens
        tokens.refreshEndsAtMillis = life.endMillis
        tokens.statesRefreshLife = refreshIdleMillis != nil
        return tokens
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

    /// Issues a token pair to a user who authorized `clientID` (authorization code or device
    /// grant), with an ID token when `scope` has `openid`.
    func issueAuthorized(user: UserIdentity, clientID: String, scope: String?, nonce: String?) async -> Result<IssuedTokens, AuthFailure> {
        await withIDToken(await issue(to: user, clientID: clientID, scope: scope), clientID: clientID, nonce: nonce)
    }

    /// Adds an ID token to a successful OAuth issue whose scope has `openid`.
    private func withIDToken(
        _ result: Result<IssuedTokens, AuthFailure>, clientID: String?, nonce: String?
    ) async -> Result<IssuedTokens, AuthFailure> {
        guard case .success(var issued) = result, let user = issued.user, let clientID,
            (issued.scope ?? "").split(separator: " ").contains("openid")
        else { return result }
        let fault = idTokenFault.current
        let times = fault.times(now: Double(WallClock.millis() / 1000), expiry: Double(issued.access.expiresAtMillis) / 1000)
        let claims = IDTokenClaims(
            issuer: IssuerClaim(value: fault.issuer(identity.issuer)),
            subject: SubjectClaim(value: String(user.id)),
            audience: AudienceClaim(value: fault.audience(clientID)),
            expiration: ExpirationClaim(value: times.expiration),
            issuedAt: IssuedAtClaim(value: times.issuedAt),
            nonce: fault.nonce(nonce),
            email: "\(user.login)@vault.invalid",
            name: user.login)
        do {
            issued.idToken = try await fault.sign(claims, with: signing)
        } catch {
            return .failure(.internalError)
        }
        stats.increment(\.idTokens)
        return .success(issued)
    }

    /// What ``revoke(token:clientID:)`` concluded.
    enum Revocation: Sendable, Equatable {
        /// Revoked, or unknown (RFC 7009 §2.2: both answer 200).
        case done
        /// The token was issued to another client.
        case foreign
    }

    /// Revokes a refresh or access token of `clientID` (RFC 7009 §2.1).
    func revoke(token: String, clientID: String) async -> Revocation {
        for kind in [TokenKind.refresh, .access] {
            let claims: TokenClaims
            switch await tokens.decode(token, as: kind) {
            case .valid(let valid), .expired(let valid): claims = valid
            case .invalid: continue
            }
            guard claims.clientID == clientID else { return .foreign }
            if kind == .refresh {
                if let userID = Int64(claims.subject.value) {
                    _ = users.revokeRefreshToken(userID: userID, tokenID: claims.id.value)
                }
            } else {
                let now = WallClock.millis()
                revokedAccess.withLock { revoked in
                    revoked = revoked.filter { $0.value > now }
                    revoked[claims.id.value] = claims.expiresAtMillis
                }
            }
            return .done
        }
        return .done
    }

    /// Rotates a refresh token: the presented one dies, a new pair is issued. The token must
    /// have been issued through the same channel (`clientID` `nil` for `/api`).
    func refresh(token: String, clientID: String?, requestedScope: String?) async -> Result<IssuedTokens, AuthFailure> {
        let result = await withIDToken(await rotate(token: token, clientID: clientID, requestedScope: requestedScope), clientID: clientID, nonce: nil)
        switch result {
        case .success: stats.increment(\.refreshes)
        case .failure(let failure) where failure != .internalError && failure != .invalidScope:
            stats.increment(\.failedRefreshes)
        case .failure: break
        }
        return result
    }

    /// A new access token for the holder of a live refresh token of `clientID`, which stays
    /// live (no rotation, as Sign in with Apple does); ``IssuedTokens/refresh`` is the presented
    /// token. Counts `refreshes` or `failedRefreshes` as ``refresh(token:clientID:requestedScope:)``.
    func refreshWithoutRotation(token: String, clientID: String) async -> Result<IssuedTokens, AuthFailure> {
        let result = await reissue(token: token, clientID: clientID)
        switch result {
        case .success: stats.increment(\.refreshes)
        case .failure(let failure) where failure != .internalError: stats.increment(\.failedRefreshes)
        case .failure: break
        }
        return result
    }

    private func reissue(token: String, clientID: String) async -> Result<IssuedTokens, AuthFailure> {
        let claims: TokenClaims
        switch await tokens.decode(token, as: .refresh) {
        case .valid(let valid): claims = valid
        case .expired: return .failure(.refreshTokenExpired)
        case .invalid: return .failure(.invalidRefreshToken)
        }
        let now = WallClock.millis()
        guard claims.principal == .user, claims.clientID == clientID, let userID = Int64(claims.subject.value) else {
            return .failure(.invalidRefreshToken)
        }
        let life = refreshLife(expiresAtMillis: claims.expiresAtMillis, now: now)
        let user: UserIdentity
        switch users.use(liveRefreshToken: claims.id.value, userID: userID, idleDeadlineMillis: life.idleDeadlineMillis, now: now) {
        case .accepted(let holder): user = holder
        case .idleExpired: return .failure(.refreshTokenExpired)
        case .rejected: return .failure(.invalidRefreshToken)
        }
        do {
            let access = try await signAccess(for: user, clientID: clientID, scope: claims.scope, now: now)
            let presented = SignedToken(token: token, expiresAtMillis: claims.expiresAtMillis, id: claims.id.value)
            return .success(stating(life, in: IssuedTokens(user: user, access: access, refresh: presented, scope: claims.scope)))
        } catch {
            return .failure(.internalError)
        }
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
            let life = refreshLife(expiresAtMillis: refresh.expiresAtMillis, now: now)
            users.addRefreshToken(userID: user.id, tokenID: refresh.id, life: life, now: now)
            return .success(stating(life, in: IssuedTokens(user: user, access: access, refresh: refresh, scope: scope)))
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
        let life = refreshLife(expiresAtMillis: now + refreshLifetimeMillis, now: now)
        let user: UserIdentity
        switch users.rotate(userID: userID, oldID: claims.id.value, newID: newID, newLife: life, now: now) {
        case .accepted(let holder):
            user = holder
            refreshLog.record(login: holder.login, at: now, outcome: .refreshed, spent: claims.id.value, issued: newID)
        case .idleExpired: return .failure(.refreshTokenExpired)
        case .rejected:
            if let holder = users.user(id: userID) {
                refreshLog.record(login: holder.login, at: now, outcome: .reused, spent: claims.id.value)
            }
            return .failure(.invalidRefreshToken)
        }
        do {
            let access = try await signAccess(for: user, clientID: clientID, scope: scope, now: now)
            let refresh = try await tokens.sign(
                kind: .refresh, principal: .user, subject: String(user.id), generation: user.generation,
                clientID: clientID, scope: scope, expiresAtMillis: life.expiresAtMillis, nowMillis: now, id: newID)
            return .success(stating(life, in: IssuedTokens(user: user, access: access, refresh: refresh, scope: scope)))
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
        guard !revokedAccess.withLock({ $0[claims.id.value] != nil }) else { return .failure(.invalidAccessToken) }
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
