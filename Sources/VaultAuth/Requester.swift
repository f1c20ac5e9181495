// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Logging
import Synchronization
import VaultStore

/// What the Requester did for a request, for logs and for the `vault request` report.
public enum RequesterEvent: Sendable, Equatable {
    /// The stored access token was used as it was.
    case usedToken
    /// The access token was refreshed with the refresh token.
    case refreshed
    /// Another process had refreshed already; its tokens were taken from the store.
    case adoptedStoredTokens
    /// The refresh token was dead and the reauthenticator logged in again.
    case loggedInAgain
    /// A 401 led to one replay of the request.
    case replayedAfter401
    /// New tokens could not be written to the store: they are kept in memory and the save
    /// is tried again on the next use (the message says why it failed).
    case tokensNotSaved(String)
    /// A redirect within the server's origin was followed (with the token).
    case followedRedirect
    /// A redirect to another origin was followed without the token.
    case followedRedirectWithoutToken
}

/// Logs in again when a refresh fails for good (see `SilentReauthenticator`).
public protocol Reauthenticating: Sendable {
    /// New tokens from a fresh login, or the error to report.
    func reauthenticate(
        account: AccountItems, provider: any AuthProvider, after failure: AuthError
    ) async throws(AuthError)
        -> TokenSet
}

/// Sends HTTP requests with an account's access token and keeps that token valid.
///
/// - The token goes only to the account's origin (`AccountItems.server`: scheme, host and
///   port, see `Origin`): a request for any other origin is refused before anything is
///   sent. Redirects are followed here, by `RedirectRule`, whatever the transport: within
///   the origin with the token, to another origin without it (and never with a body).
///   Only a 401 answered to a request that carried the token counts as a rejected token.
/// - Before sending, a `stale` token (within the leeway of expiry) or an `expired` one is
///   refreshed. When a stale token cannot be refreshed for a transient reason, the
///   still-valid token is used.
/// - Exactly one refresh runs at a time in a process: every request that needs it waits
///   for it. Across processes the refresh holds `RefreshLock` and re-reads the store
///   under it, adopting tokens another process already refreshed.
/// - New tokens are written to the store before any waiter resumes.
/// - A 401 for a request that carried the current token causes one refresh and one
///   replay; a 401 for a token that was replaced meanwhile is replayed with the new one
///   without a refresh. Never more than one replay per request: a second 401 is
///   `.authentication`.
/// - Transient failures (5xx, timeouts) never discard the stored tokens.
public actor Requester {
    /// How a ``Requester`` times, bounds and locks its work; every value has a default.
    public struct Configuration: Sendable {
        /// Refresh this long before expiry (at most half the token's lifetime).
        public var leeway: TimeInterval = TokenSet.defaultLeeway
        /// The timeout of each request to the resource server.
        public var requestTimeout: Duration = .seconds(30)
        /// How long to wait for another process's refresh.
        public var lockTimeout: Duration = .seconds(60)
        /// Where the cross-process refresh lock lives (default: `.automatic`).
        public var lock: RefreshLock.Placement
        /// How many refreshes rejected tokens may cause in how long before requests fail
        /// with ``AuthError/excessiveRefresh(_:)`` (default: 3 in 60 s).
        public var refreshWindow: (interval: Duration, maximumAttempts: Int)

        /// Creates a configuration. Defaults: leeway ``TokenSet/defaultLeeway``, request timeout 30 s, lock
        /// timeout 60 s, ``RefreshLock/Placement/automatic``, and at most 3 rejection refreshes in 60 s.
        public init(
            leeway: TimeInterval = TokenSet.defaultLeeway, requestTimeout: Duration = .seconds(30),
            lockTimeout: Duration = .seconds(60), lock: RefreshLock.Placement = .automatic,
            refreshWindow: (interval: Duration, maximumAttempts: Int) = (.seconds(60), 3)
        ) {
            self.leeway = leeway
            self.requestTimeout = requestTimeout
            self.lockTimeout = lockTimeout
            self.lock = lock
            self.refreshWindow = refreshWindow
        }
    }

    /// The account whose tokens this requester uses and keeps; the token goes only to its server's origin.
    public let account: AccountItems
    /// Where the token may go (nil: nowhere, the account's server is not a URL or host).
    private let accountOrigin: Origin?
    /// Refreshes the account's tokens (and logs in, for the reauthenticator).
    public let provider: any AuthProvider
    private let transport: any HTTPTransport
    private let clock: any AuthClock
    private let configuration: Configuration
    private let reauthenticator: (any Reauthenticating)?
    private let logger: Logger
    private let onEvent: @Sendable (RequesterEvent) -> Void

    /// Everything this Requester knows of the account's tokens: one value, so no
    /// combination of half-states can be written.
    private var state: TokenState = .unloaded {
        didSet { publishReadyTokens() }
    }
    /// The tokens of a `ready` state whose store has them, readable without a hop onto the
    /// actor: while they are fresh, a request takes them from here (the common case), and
    /// everything else (loading, refreshing, unsaved or stale tokens) goes through the actor.
    /// Kept equal to `state` by its `didSet`.
    private nonisolated let readyTokens = Mutex<HeldTokens?>(nil)
    /// Refreshes caused by a rejected token, to stop refresh storms.
    private var rejectionRefreshes: RefreshWindow

    /// A requester for `account`; nothing is read or sent until the first request. `onEvent` gets every
    /// ``RequesterEvent``, on whatever thread the work runs. Without `reauthenticator` a dead refresh token
    /// fails with ``AuthError/authentication(_:providerCode:)``.
    public init(
        account: AccountItems, provider: any AuthProvider, transport: any HTTPTransport,
        clock: any AuthClock = SystemClock(), configuration: Configuration = Configuration(),
        reauthenticator: (any Reauthenticating)? = nil, logger: Logger = Logger(label: "vault.requester"),
        onEvent: @escaping @Sendable (RequesterEvent) -> Void = { _ in }
    ) {
        self.account = account
        self.accountOrigin = Self.origin(of: account.server)
        self.provider = provider
        self.transport = transport
        self.clock = clock
        self.configuration = configuration
        self.reauthenticator = reauthenticator
        self.logger = logger
        self.onEvent = onEvent
        self.rejectionRefreshes = RefreshWindow(
            interval: configuration.refreshWindow.interval, maximumAttempts: configuration.refreshWindow.maximumAttempts)
    }

    /// Sends `request` with `Authorization: Bearer <access token>` and returns the
    /// response, whatever its status, unless authentication fails for good.
    ///
    /// Throws `.invalidRequest` before sending anything when `request.url` is not on the
    /// account's origin (or breaks `URLPolicy`), or the method or a header could reroute or
    /// split the request (`validateForSending`). Only the token bookkeeping runs on the
    /// actor; the HTTP exchanges run outside it, so concurrent requests do not queue
    /// behind each other's responses.
    public nonisolated func send(_ request: HTTPRequest) async throws(AuthError) -> HTTPResponse {
        try checkOrigin(request.url)
        try request.validateForSending()
        let (used, header) = try await authorizationForRequest()
        let first = try await exchange(request.setting("Authorization", to: header))
        guard first.rejectedToken else { return first.response }

        let replacement = try await tokensAfter401(for: used)
        emit(.replayedAfter401)
        let replayed = try await exchange(request.setting("Authorization", to: bearerHeader(replacement.accessToken)))
        guard !replayed.rejectedToken else {
            throw .authentication("the server rejects the account's new access token too")
        }
        return replayed.response
    }

    /// Throws unless `url` is on the account's origin and allowed by `URLPolicy`.
    nonisolated func checkOrigin(_ url: URL) throws(AuthError) {
        try URLPolicy.check(url)
        guard let target = Origin(url), let own = accountOrigin, target == own else {
            let other = Origin(url).map(\.description) ?? "an unknown host"
            throw .invalidRequest(
                "refusing to send the token of \(TextEscaping.escaped(account.server)) to another origin (\(TextEscaping.escaped(other)))")
        }
    }

    /// The account's origin: `account.server` as a URL, or `https://SERVER` for a bare host.
    static func origin(of server: String) -> Origin? {
        URL(string: server.contains("://") ? server : "https://\(server)").flatMap(Origin.init)
    }

    /// One request and the redirects `RedirectRule` allows, all within one
    /// `requestTimeout`. `rejectedToken` is true when the final answer is a 401 to a
    /// request that still carried the token.
    private nonisolated func exchange(_ request: HTTPRequest) async throws(AuthError) -> (response: HTTPResponse, rejectedToken: Bool) {
        var current = request
        let timer = ContinuousClock()
        let deadline = timer.now + configuration.requestTimeout
        for _ in 0...RedirectRule.maximumHops {
            let remaining = deadline - timer.now
            guard remaining > .zero else {
                throw .network("no final answer within \(configuration.requestTimeout), redirects included")
            }
            let response = try await transport.send(current, timeout: remaining)
            guard let next = try RedirectRule.next(after: current, response: response) else {
                return (response, provider.rejectsToken(response) && current.header("Authorization") != nil)
            }
            emit(next.header("Authorization") != nil ? .followedRedirect : .followedRedirectWithoutToken)
            current = next
        }
        throw .network("more than \(RedirectRule.maximumHops) redirects")
    }

    /// The tokens to send and their `Authorization` header.
    private nonisolated func authorizationForRequest() async throws(AuthError) -> (TokenSet, String) {
        if let held = readyTokens.withLock({ $0 }), held.tokens.freshness(at: clock.now(), leeway: configuration.leeway) == .fresh {
            emit(.usedToken)
            return (held.tokens, held.bearer)
        }
        return try await authorizationOnTheActor()
    }

    /// `authorizationForRequest` through the token state machine.
    private func authorizationOnTheActor() async throws(AuthError) -> (TokenSet, String) {
        let tokens = try await usableTokens()
        return (tokens, bearer(for: tokens))
    }

    private func publishReadyTokens() {
        let ready: HeldTokens? = if case .ready(let held) = state, held.stored { held } else { nil }
        readyTokens.withLock { $0 = ready }
    }

    /// After a 401 for `used`: the tokens that replaced it meanwhile, or one refresh,
    /// within the refresh window (a resource that rejects every new token stops here).
    private func tokensAfter401(for used: TokenSet) async throws(AuthError) -> TokenSet {
        if let current = state.held, current.tokens.accessToken != used.accessToken {
            logger.debug("401 for a token that was replaced meanwhile; replaying with the current one")
            return try await usableTokens()
        }
        if state.refreshTask == nil {
            try rejectionRefreshes.check(at: ContinuousClock.now)
        }
        logger.debug("401 for the current token; refreshing once")
        return try await refreshedTokens(replacing: used, becauseRejected: true)
    }

    /// A valid access token, refreshed first if needed (`vault token`).
    public func accessToken() async throws(AuthError) -> Secret {
        try await usableTokens().accessToken
    }

    /// The tokens in memory (nil before the first request).
    public var currentTokens: TokenSet? { state.held?.tokens }

    // MARK: - Token state machine

    private func usableTokens() async throws(AuthError) -> TokenSet {
        await retryUnsavedTokens()
        let current = try await loadedTokens()
        switch current.freshness(at: clock.now(), leeway: configuration.leeway) {
        case .fresh:
            emit(.usedToken)
            return current
        case .stale:
            do {
                return try await refreshedTokens(replacing: current)
            } catch  where error.isTransient && current.freshness(at: clock.now(), leeway: 0) != .expired {
                logger.notice("refresh failed (\(error)); the access token is still valid, using it")
                return current
            }
        case .expired:
            return try await refreshedTokens(replacing: current)
        }
    }

    /// The tokens held, after the first read of the store (shared by every request that
    /// arrives before it completes: a thousand concurrent first requests, one read).
    private func loadedTokens() async throws(AuthError) -> TokenSet {
        let task: Task<Result<TokenSet?, AuthError>, Never>
        switch state {
        case .ready(let held), .refreshing(let held, _): return held.tokens
        case .loading(let running): task = running
        case .unloaded, .absent:
            // No tokens yet: read the store (again), so a login by another process counts.
            let account = self.account
            task = Task {
                do throws(AuthError) { return .success(try await account.loadTokens()) } catch { return .failure(error) }
            }
            state = .loading(task)
        }
        let result = await task.value
        // The actor is reentrant: only the load still in the state may settle it, so a
        // load never puts back tokens a refresh replaced meanwhile.
        if case .loading(let current) = state, current == task {
            switch result {
            case .success(let tokens?): state = .ready(HeldTokens(tokens, stored: true))
            case .success(nil): state = .absent
            case .failure: state = .unloaded
            }
        }
        if case .failure(let error) = result { throw error }
        guard let held = state.held else { throw notLoggedIn }
        return held.tokens
    }

    private var notLoggedIn: AuthError {
        .authentication("not logged in to \(account.server) as \(account.account); run vault login")
    }

    /// Tries once more to store tokens an earlier save failed to store.
    private func retryUnsavedTokens() async {
        guard let pending = state.held, !pending.stored else { return }
        do throws(AuthError) {
            try await account.saveTokens(pending.tokens)
            state.markStored(pending.tokens)
            logger.notice("stored the tokens that could not be stored before")
        } catch .store(.conflict) {
            // Another process stored tokens since: take theirs when they are fresh.
            if let theirs = try? await account.loadTokens(), theirs.freshness(at: clock.now(), leeway: configuration.leeway) == .fresh,
                case .ready = state
            {
                state = .ready(HeldTokens(theirs, stored: true))
                emit(.adoptedStoredTokens)
            }
        } catch {
            logger.error("the new tokens are still not stored (\(error)); keeping them in memory")
            emit(.tokensNotSaved(error.description))
        }
    }

    /// Single flight: joins the refresh under way, or starts one. A refresh started
    /// because a token was rejected counts in the refresh window once it has succeeded (a
    /// failed one issued no token: a 5xx stays a server error).
    private func refreshedTokens(replacing old: TokenSet, becauseRejected: Bool = false) async throws(AuthError) -> TokenSet {
        let task: Task<Result<TokenSet, AuthError>, Never>
        switch state {
        case .refreshing(_, let running):
            task = running
        case .ready(let held):
            if held.tokens.accessToken != old.accessToken,
                held.tokens.freshness(at: clock.now(), leeway: configuration.leeway) == .fresh
            {
                return held.tokens
            }
            task = Task { await self.performRefresh(replacing: old, becauseRejected: becauseRejected) }
            state = .refreshing(held, task)
        case .unloaded, .loading, .absent:
            // Only held tokens are refreshed; reaching here means they were never loaded.
            throw notLoggedIn
        }
        return try await task.value.get()
    }

    /// The refresh itself: cross-process lock, re-read, refresh (or re-login), store,
    /// then publish in memory. Runs once per flight; ends the `refreshing` state.
    private func performRefresh(replacing old: TokenSet, becauseRejected: Bool) async -> Result<TokenSet, AuthError> {
        let result: Result<(tokens: TokenSet, stored: Bool), AuthError>
        do throws(AuthError) {
            result = .success(try await refreshUnderLock(replacing: old))
            if becauseRejected { rejectionRefreshes.record(at: ContinuousClock.now) }
        } catch {
            result = .failure(error)
        }
        guard case .refreshing(let previous, _) = state else { return result.map(\.tokens) }
        switch result {
        case .success(let new): state = .ready(HeldTokens(new.tokens, stored: new.stored))
        case .failure: state = .ready(previous)
        }
        return result.map(\.tokens)
    }

    /// Under the cross-process lock: adopt what another process stored, else refresh (or
    /// log in again), then persist. Returns the tokens and whether the store took them.
    /// A lock that lapsed before the refresh (``AccountLockHold/isStillHeld()``) is taken
    /// again and the store read again, at most three times.
    private func refreshUnderLock(replacing old: TokenSet) async throws(AuthError) -> (tokens: TokenSet, stored: Bool) {
        for _ in 0..<3 {
            let hold: (any AccountLockHold)?
            switch try await lockOrAdoption(replacing: old) {
            case .adopted(let tokens): return (tokens, true)
            case .locked(let held): hold = held
            }
            let result: Result<(tokens: TokenSet, stored: Bool)?, AuthError>
            do throws(AuthError) {
                result = .success(try await refreshHoldingLock(replacing: old, hold: hold))
            } catch {
                result = .failure(error)
            }
            await hold?.release()
            if let done = try result.get() { return done }
            logger.warning("the refresh lock lapsed while this process held it (stalled past its lease); taking it again")
        }
        throw .lockTimeout("the refresh lock of \(account.account) on \(account.server) lapsed three times in a row; nothing was refreshed")
    }

    /// ``refreshUnderLock(replacing:)``'s work, once the lock is held; nil when the lock
    /// lapsed before anything was spent.
    private func refreshHoldingLock(
        replacing old: TokenSet, hold: (any AccountLockHold)?
    ) async throws(AuthError) -> (tokens: TokenSet, stored: Bool)? {
        // Tokens held only in memory are newer than anything stored: the store's are
        // rotated away, so neither adopt nor refresh from them. Asked under the lock: a
        // retried save may have stored them while this refresh waited for it.
        let heldUnstored = state.held.map { !$0.stored } ?? false
        let stored = heldUnstored ? nil : try await account.loadTokens()
        // Stored tokens that are gone were removed by a logout (which holds this lock too):
        // refreshing with the ones in memory would log the account back in behind its back.
        if !heldUnstored, stored == nil {
            throw .authentication("not logged in to \(account.server) as \(account.account) any more (logged out); run vault login")
        }
        if let adopted = adoptable(stored, replacing: old) { return (adopted, true) }
        // Last check before the refresh token is spent: is the lock still ours?
        if let hold, !(await hold.isStillHeld()) { return nil }
        let base = stored ?? old
        let new: TokenSet
        do throws(AuthError) {
            new = try await refreshOrLogIn(from: base)
        } catch {
            if case .interactionRequired = error, let stored, stored.refreshToken != nil, stored.refreshToken == base.refreshToken {
                await forgetDeadRefreshToken(of: stored)
            }
            throw error
        }
        var failure = await store(new)
        if case .store(.conflict)? = failure {
            // Another process stored tokens after this one read them: this one's lock must
            // have lapsed (a fleet lock whose lease expired while this process stalled). Its
            // tokens win when they are fresh; otherwise (its refresh failed, its tokens are
            // stale or dead) this refresh's are the newest good ones: store them over it,
            // now that the read is fresh.
            if let theirs = try? await account.loadTokens() {
                if theirs.freshness(at: clock.now(), leeway: configuration.leeway) == .fresh {
                    logger.notice("another process stored new tokens while this one refreshed; taking theirs")
                    emit(.adoptedStoredTokens)
                    return (theirs, true)
                }
                failure = await store(new)
            }
        }
        guard let failure else { return (new, true) }
        reportUnsaved(failure)
        return (new, false)
    }

    /// The provider refused `stored`'s refresh token for good and only a person can sign in
    /// again: the stored tokens keep everything but it, so later requests (a cron job's
    /// every run) end at once instead of offering the dead token to the provider again.
    /// Called under the cross-process lock, with `stored` just read: nothing newer is lost.
    private func forgetDeadRefreshToken(of stored: TokenSet) async {
        var dead = stored
        dead.refreshToken = nil
        dead.refreshTokenExpiry = nil
        do throws(AuthError) {
            try await account.saveTokens(dead)
        } catch {
            logger.warning("could not record that the refresh token is dead (\(error))")
        }
    }

    /// `stored` when another process has already replaced `old` with fresh tokens.
    private func adoptable(_ stored: TokenSet?, replacing old: TokenSet) -> TokenSet? {
        guard let stored, stored.accessToken != old.accessToken,
            stored.freshness(at: clock.now(), leeway: configuration.leeway) == .fresh
        else { return nil }
        logger.debug("another process refreshed already; adopting its tokens")
        emit(.adoptedStoredTokens)
        return stored
    }

    /// What waiting for the refresh lock ended with.
    private enum LockOrTokens: Sendable {
        /// The lock (nil: in-process single flight only).
        case locked((any AccountLockHold)?)
        /// Fresh tokens another process stored while this one waited.
        case adopted(TokenSet)
    }

    /// Takes the cross-process lock of this account's refresh; while waiting, reads the
    /// store every ``adoptionPollInterval`` and stops waiting (cancelling the lock) as soon
    /// as another process has stored fresh tokens. So when many processes (a fleet's many
    /// machines) meet an expired token at once, one refreshes and the others adopt its
    /// tokens without each taking the lock in turn.
    private func lockOrAdoption(replacing old: TokenSet) async throws(AuthError) -> LockOrTokens {
        guard let locking = configuration.lock.locking(for: account.store) else { return .locked(nil) }
        let (server, name, timeout) = (account.server, account.account, configuration.lockTimeout)
        // Tokens held only in memory are newer than the store's: nothing there to adopt.
        let mayAdopt = !(state.held.map { !$0.stored } ?? false)
        let outcome: Result<LockOrTokens, AuthError> = await withTaskGroup(of: Result<LockOrTokens, AuthError>?.self) { group in
            group.addTask {
                do throws(AuthError) {
                    return .success(.locked(try await locking.hold(server: server, account: name, timeout: timeout)))
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                while mayAdopt, !Task.isCancelled {
                    try? await Task.sleep(for: Self.adoptionPollInterval)
                    if Task.isCancelled { return nil }
                    if let tokens = await self.storedTokensToAdopt(replacing: old) { return .success(.adopted(tokens)) }
                }
                return nil
            }
            var first: Result<LockOrTokens, AuthError>?
            while let next = await group.next() {
                guard let next else { continue }
                if first == nil {
                    first = next
                    group.cancelAll()
                } else if case .success(.locked(let hold?)) = next {
                    await hold.release()  // the lock came after the tokens were adopted: give it back
                }
            }
            return first ?? .failure(.lockTimeout("the wait for the refresh lock ended without an outcome"))
        }
        return try outcome.get()
    }

    /// How often a process waiting for the refresh lock looks for tokens another stored.
    static let adoptionPollInterval: Duration = .milliseconds(200)

    /// Stored tokens that replace `old` and are fresh, read now; nil otherwise.
    private func storedTokensToAdopt(replacing old: TokenSet) async -> TokenSet? {
        guard let stored = try? await account.loadTokens() else { return nil }
        return adoptable(stored, replacing: old)
    }

    /// A refresh with `base`'s refresh token, or, when that fails for good, a silent login.
    private func refreshOrLogIn(from base: TokenSet) async throws(AuthError) -> TokenSet {
        do throws(AuthError) {
            guard base.canRefresh(at: clock.now()) else {
                throw AuthError.authentication(
                    base.refreshToken == nil
                        ? "there is no refresh token to use (none was issued, or the provider refused it)" : "the refresh token has expired")
            }
            let new = try await provider.refresh(base)
            emit(.refreshed)
            logger.debug("refreshed the access token of \(account.account)")
            return new
        } catch {
            guard case .authentication(let why, _) = error else { throw error }
            // An account a person signed in through the browser or on another device has no
            // stored credentials to log in with: only a new `vault login` helps.
            guard provider.canLogInSilently else { throw .interactionRequired(why) }
            guard let reauthenticator else { throw error }
            logger.notice("the refresh token is dead (\(error)); logging in again with the stored credentials")
            let new = try await reauthenticator.reauthenticate(account: account, provider: provider, after: error)
            emit(.loggedInAgain)
            return new
        }
    }

    /// Stores `new`; nil when stored, else the store's error (then the caller keeps them in
    /// memory, stored on the next use, rather than losing tokens the server has already
    /// rotated to, and says so with ``reportUnsaved(_:)``).
    private func store(_ new: TokenSet) async -> AuthError? {
        do throws(AuthError) {
            try await account.saveTokens(new)
            return nil
        } catch {
            return error
        }
    }

    /// Says once that new tokens are held in memory only.
    private func reportUnsaved(_ error: AuthError) {
        logger.error("could not store the new tokens (\(error)); keeping them in memory and trying again on next use")
        emit(.tokensNotSaved(error.description))
    }

    /// `Bearer <token>`, built once per access token (held with the tokens).
    private func bearer(for tokens: TokenSet) -> String {
        if let held = state.held, held.tokens.accessToken == tokens.accessToken { return held.bearer }
        return bearerHeader(tokens.accessToken)
    }

    private nonisolated func bearerHeader(_ token: Secret) -> String { HeldTokens.bearer(token) }

    private nonisolated func emit(_ event: RequesterEvent) { onEvent(event) }
}
