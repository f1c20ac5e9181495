// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultSync

/// The public facts about a user that token issuing needs.
struct UserIdentity: Sendable, Equatable {
    /// Numeric id.
    let id: Int64
    /// Login.
    let login: String
    /// Current access-token generation; tokens of older generations are revoked.
    let generation: Int
}

/// Outcome of presenting a refresh token's `jti` for rotation (or for a use without rotation).
enum RefreshTokenUse: Sendable, Equatable {
    /// The old token is dead now and the new one is live (without rotation: the token was
    /// live, and its idle deadline moved on).
    case accepted(UserIdentity)
    /// The token was live but unused past its idle deadline: it is dead now.
    case idleExpired
    /// Unknown user, or the token was already used, revoked or expired.
    case rejected
}

/// When a live refresh token dies, in Unix milliseconds.
struct RefreshTokenLife: Sendable, Equatable {
    /// Its absolute expiry (the JWT's `exp`).
    var expiresAtMillis: Int64
    /// When it dies if unused (``AuthServerConfiguration/refreshTokenIdleLifetime`` after its
    /// issue or last use); ``expiresAtMillis`` when the server has no idle timeout.
    var idleDeadlineMillis: Int64

    /// The earlier of the two: the token is dead from then on.
    var endMillis: Int64 { min(expiresAtMillis, idleDeadlineMillis) }
}

/// Registered users with hashed passwords, and the live refresh tokens of each
/// (by `jti`): the server-side state behind refresh-token rotation.
final class UserDirectory: Sendable {
    private struct Record {
        let id: Int64
        let login: String
        var password: PasswordHash
        var generation = 0
        /// Live refresh token ids and when they die.
        var refreshTokens: [String: RefreshTokenLife] = [:]
    }

    private struct State {
        var byLogin: [String: Record] = [:]
        var loginByID: [Int64: String] = [:]
        var nextID: Int64 = 1
    }

    private let state = Locked(State())
    private let iterations: Int

    /// Creates a directory holding `users`; later duplicates of a login are ignored.
    init(users: [CredentialPair], iterations: Int) {
        self.iterations = iterations
        for user in users {
            _ = register(login: user.name, password: user.secret)
        }
    }

    /// Adds a user; `nil` if the login is taken. Hashing happens outside the lock.
    func register(login: String, password: String) -> UserIdentity? {
        let hash = PasswordHasher.hash(password, iterations: iterations)
        return state.withLock { state in
            guard state.byLogin[login] == nil else { return nil }
            let record = Record(id: state.nextID, login: login, password: hash)
            state.nextID += 1
            state.byLogin[login] = record
            state.loginByID[record.id] = login
            return UserIdentity(id: record.id, login: login, generation: record.generation)
        }
    }

    /// The user if `password` is right for `login`; verification happens outside the lock.
    func authenticate(login: String, password: String) -> UserIdentity? {
        let found = state.withLock { state in
            state.byLogin[login].map { ($0.password, UserIdentity(id: $0.id, login: $0.login, generation: $0.generation)) }
        }
        guard let found, PasswordHasher.verify(password, against: found.0) else { return nil }
        return found.1
    }

    /// The user with `id`, if any.
    func user(id: Int64) -> UserIdentity? {
        state.withLock { state in
            guard let login = state.loginByID[id], let record = state.byLogin[login] else { return nil }
            return UserIdentity(id: record.id, login: record.login, generation: record.generation)
        }
    }

    /// The user with `login`, if any.
    func userIdentity(login: String) -> UserIdentity? {
        state.withLock { state in
            state.byLogin[login].map { UserIdentity(id: $0.id, login: $0.login, generation: $0.generation) }
        }
    }

    /// Whether the user exists and access tokens of `generation` are still honoured.
    func acceptsAccessToken(userID: Int64, generation: Int) -> Bool {
        user(id: userID)?.generation == generation
    }

    /// Records a newly issued refresh token as live.
    func addRefreshToken(userID: Int64, tokenID: String, life: RefreshTokenLife, now: Int64) {
        state.withLock { state in
            guard let login = state.loginByID[userID], var record = state.byLogin[login] else { return }
            record.refreshTokens = Self.pruned(record.refreshTokens, now: now)
            record.refreshTokens[tokenID] = life
            state.byLogin[login] = record
        }
    }

    /// Atomically kills the refresh token `oldID` and makes `newID` live with `newLife`;
    /// rejected if `oldID` is not live (already used or revoked), `.idleExpired` if it went
    /// unused past its idle deadline (it stays dead, and says so again until pruned). Of
    /// concurrent uses of one token, exactly one wins.
    func rotate(userID: Int64, oldID: String, newID: String, newLife: RefreshTokenLife, now: Int64) -> RefreshTokenUse {
        state.withLock { state in
            guard let login = state.loginByID[userID], var record = state.byLogin[login] else { return .rejected }
            guard let old = record.refreshTokens[oldID] else { return .rejected }
            // An idle-dead token stays until its absolute expiry (see pruned(_:now:)).
            guard old.idleDeadlineMillis > now else { return .idleExpired }
            record.refreshTokens[oldID] = nil
            record.refreshTokens = Self.pruned(record.refreshTokens, now: now)
            record.refreshTokens[newID] = newLife
            state.byLogin[login] = record
            return .accepted(UserIdentity(id: record.id, login: record.login, generation: record.generation))
        }
    }

    /// Uses the live refresh token `tokenID`, which stays live (Sign in with Apple's refresh
    /// tokens do not rotate) with its idle deadline moved to `idleDeadlineMillis`: `.accepted`
    /// with its holder; `.rejected` if it was revoked or expired, `.idleExpired` if it went
    /// unused past its idle deadline.
    func use(liveRefreshToken tokenID: String, userID: Int64, idleDeadlineMillis: Int64, now: Int64) -> RefreshTokenUse {
        state.withLock { state in
            guard let login = state.loginByID[userID], var record = state.byLogin[login],
                let life = record.refreshTokens[tokenID], life.expiresAtMillis > now
            else { return .rejected }
            guard life.idleDeadlineMillis > now else { return .idleExpired }
            record.refreshTokens[tokenID]?.idleDeadlineMillis = idleDeadlineMillis
            state.byLogin[login] = record
            return .accepted(UserIdentity(id: record.id, login: record.login, generation: record.generation))
        }
    }

    /// Kills every refresh token of `login`; the number killed, or `nil` for an unknown login.
    func revokeRefreshTokens(login: String) -> Int? {
        state.withLock { state in
            guard let count = state.byLogin[login]?.refreshTokens.count else { return nil }
            state.byLogin[login]?.refreshTokens = [:]
            return count
        }
    }

    /// Invalidates every access token issued to `login` so far; `false` for an unknown login.
    func revokeAccessTokens(login: String) -> Bool {
        state.withLock { state in
            guard state.byLogin[login] != nil else { return false }
            state.byLogin[login]?.generation += 1
            return true
        }
    }

    /// Kills one refresh token (RFC 7009); `false` if it was not live.
    func revokeRefreshToken(userID: Int64, tokenID: String) -> Bool {
        state.withLock { state in
            guard let login = state.loginByID[userID] else { return false }
            return state.byLogin[login]?.refreshTokens.removeValue(forKey: tokenID) != nil
        }
    }

    /// Replaces the password of `login` (tokens stay valid); `false` for an unknown login.
    func setPassword(login: String, password: String) -> Bool {
        let hash = PasswordHasher.hash(password, iterations: iterations)
        return state.withLock { state in
            guard state.byLogin[login] != nil else { return false }
            state.byLogin[login]?.password = hash
            return true
        }
    }

    /// Number of live refresh tokens of `login` (expired ones included until pruned).
    func liveRefreshTokenCount(login: String) -> Int? {
        state.withLock { $0.byLogin[login]?.refreshTokens.count }
    }

    private static func pruned(_ tokens: [String: RefreshTokenLife], now: Int64) -> [String: RefreshTokenLife] {
        // Idle-dead tokens stay until their absolute expiry, so that presenting one is still
        // told "expired" rather than "invalid".
        tokens.filter { $0.value.expiresAtMillis > now }
    }
}
