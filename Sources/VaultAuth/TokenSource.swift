// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Logging
import VaultStore
import VaultSync

/// Logs in again when a refresh fails for good (see `SilentReauthenticator`).
public protocol Reauthenticating: Sendable {
    /// New tokens from a fresh login, or the error to report.
    func reauthenticate(
        account: AccountItems, provider: any AuthProvider, after failure: AuthError
    ) async throws(AuthError)
        -> TokenSet
}

/// Answers "a valid token for this account", as golang.org/x/oauth2's `TokenSource` does:
/// what a ``Requester`` sends, what `vault token` prints, what an agent hands out. A `stale` or
/// `expired` token is refreshed first (a stale one is still used when the refresh fails for a
/// transient reason); one refresh runs at a time in a process, and across processes under the
/// account's lock (``AccountLocking``), re-reading the store. New tokens are stored before any
/// waiter resumes (refused ones are kept in memory until the next use); a dead refresh token
/// leads to one silent login (``Reauthenticating``); transient failures never discard stored
/// tokens. The rules, and the fast path: docs/tokens.md, "One refresh at a time".
public actor TokenSource {
    /// The account whose tokens this source keeps.
    public nonisolated let account: AccountItems
    /// Refreshes the account's tokens (and logs in, for the reauthenticator).
    public nonisolated let provider: any AuthProvider
    /// Leeway, lock placement and timeouts.
    public nonisolated let configuration: Requester.Configuration
    private let clock: any AuthClock
    private let reauthenticator: (any Reauthenticating)?
    private let logger: Logger
    private let onEvent: @Sendable (RequesterEvent) -> Void

    /// Everything this source knows of the account's tokens: one value, so no combination
    /// of half-states can be written.
    private var state: TokenState = .unloaded {
        didSet { publishReadyTokens() }
    }
    /// The tokens of a `ready` state whose store has them, readable without a hop onto the
    /// actor: while they are fresh, a caller takes them from here (the common case), and
    /// everything else (loading, refreshing, unsaved or stale tokens) goes through the actor.
    /// Kept equal to `state` by its `didSet`.
    private nonisolated let readyTokens = Locked<HeldTokens?>(nil)
    /// Refreshes caused by a rejected token, to stop refresh storms.
    private var rejectionRefreshes: RefreshAttempts
    /// Set by ``close()``: no refresh token is spent any more.
    private var closing = false
    /// Set by a refresh that found the store's tokens gone (a logout): the held ones go too.
    private var loggedOutSeen = false
    /// Set by ``handOver()``: the source reads and writes its store no more.
    private var handedOver = false

    /// A source for `account`; nothing is read until the first call. `onEvent` gets the token
    /// events (``RequesterEvent/usedToken``, ``RequesterEvent/refreshed``, ...), on whatever
    /// thread the work runs. Without `reauthenticator` a dead refresh token fails with
    /// ``AuthError/authentication(_:providerCode:remedy:)``.
    public init(
        account: AccountItems, provider: any AuthProvider, clock: any AuthClock = SystemClock(),
        configuration: Requester.Configuration = Requester.Configuration(), reauthenticator: (any Reauthenticating)? = nil,
        logger: Logger = Logger(label: "vault.requester"), onEvent: @escaping @Sendable (RequesterEvent) -> Void = { _ in }
    ) {
        self.account = account
        self.provider = provider
        self.clock = clock
        self.configuration = configuration
        self.reauthenticator = reauthenticator
        self.logger = logger
        self.onEvent = onEvent
        self.rejectionRefreshes = RefreshAttempts(configuration.refreshWindow)
    }

    /// Valid tokens for the account, refreshed first if needed.
    public nonisolated func token() async throws(AuthError) -> TokenSet {
        try await authorization().tokens
    }

    /// A valid access token, refreshed first if needed (`vault token`).
    public nonisolated func accessToken() async throws(AuthError) -> Secret {
        try await authorization().tokens.accessToken
    }

    /// The tokens that replace `used` after the resource server rejected it (a 401): those
    /// that replaced it meanwhile, or one refresh, within the ``RefreshWindow`` (a resource
    /// that rejects every new token stops here with ``AuthError/excessiveRefresh(_:)``).
    public func replacement(afterRejectionOf used: TokenSet) async throws(AuthError) -> TokenSet {
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

    /// New tokens now, although the held ones may still be fresh: what an agent calls to
    /// keep an account alive ahead of the access token's expiry and of the refresh token's
    /// idle window. Loads the tokens first when none are held, then refreshes through the
    /// same single flight, cross-process lock and adoption as a refresh at expiry: when
    /// another process (another agent, a command) has stored newer fresh tokens meanwhile,
    /// those are taken instead (``RequesterEvent/adoptedStoredTokens``), so however many
    /// agents keep an account, one refresh is spent per expiry. A refresh already under way
    /// is joined. A dead refresh token leads to the silent re-login as at expiry; every
    /// failure is thrown (a transient one leaves the held tokens as they were).
    public func refreshAhead() async throws(AuthError) -> TokenSet {
        await retryUnsavedTokens()
        let current = try await loadedTokens()
        logger.debug("refreshing the access token of \(account.account) ahead of its expiry")
        return try await refreshedTokens(replacing: current)
    }

    /// Stops spending refresh tokens, for a process about to exit (an agent's stop). A
    /// refresh still waiting for the lock, or not yet sent, ends with
    /// ``AuthError/lockTimeout(_:)`` (the next process refreshes); one already sent runs to
    /// its store write, and this returns after it; tokens the store refused before are
    /// offered to it once more. So an exit never falls between the provider's answer and
    /// the store's write, where the rotated refresh token would be lost.
    public func close() async {
        closing = true
        if let running = state.refreshTask { _ = await running.value }
        // Tokens the store refused earlier exist nowhere else: one more try before the exit.
        await retryUnsavedTokens()
    }

    /// Retires the source for a holder that drops it with its store (an agent at a lock):
    /// no refresh token is spent and the store is neither read nor written any more. A
    /// refresh already sent runs to its store write first. Returns the tokens the store
    /// refused, the only copy of the rotated refresh token, for the next source of the
    /// account to store (``carry(_:)``); nil when everything held is stored.
    public func handOver() async -> UnsavedTokens? {
        closing = true
        handedOver = true
        while let running = state.refreshTask { _ = await running.value }
        defer { state = .unloaded }
        guard case .ready(let held) = state, !held.stored else { return nil }
        return UnsavedTokens(tokens: held.tokens, replacing: held.replacing)
    }

    /// Takes up tokens an earlier source of the account could not store (``handOver()``),
    /// before this source is first used: they are served, and stored over exactly the
    /// stored tokens they replace at the first use; when the store holds others (a new
    /// login) or none (a logout), they are dropped, as in the source that made them.
    public func carry(_ unsaved: UnsavedTokens) {
        guard case .unloaded = state, !handedOver else { return }
        state = .ready(HeldTokens(unsaved.tokens, stored: false, replacing: unsaved.replacing))
    }

    /// Whether this source may go on after another process changed the account's items
    /// and the store now holds `stored`: true while it holds exactly those tokens, or
    /// tokens the store refused that still replace them (``stillReplaces(_:_:)``; the
    /// provider has rotated, so they exist nowhere else). A refresh under way decides for
    /// itself under the lock. False for anything else: the caller drops the source, and a
    /// new one reads the store.
    public func stillHolds(afterStoreChangedTo stored: TokenSet?) -> Bool {
        switch state {
        case .refreshing: return true
        case .ready(let held): return held.stored ? held.tokens == stored : Self.stillReplaces(stored, held.replacing)
        default: return false
        }
    }

    private var stopping: AuthError {
        .lockTimeout("stopping: the refresh of \(account.account) on \(account.server) is left to the next process")
    }

    /// Valid tokens with their `Authorization` value: a fresh held token without a hop
    /// onto the actor, else through the state machine.
    nonisolated func authorization() async throws(AuthError) -> HeldTokens {
        if let held = freshAuthorization() { return held }
        return try await authorizationOnTheActor()
    }

    /// The held tokens when they are stored and fresh, read synchronously (one short mutex
    /// read, no actor hop, no suspension): the common case of every request. Nil when the
    /// state machine must run (``authorizationOnTheActor()``).
    nonisolated func freshAuthorization() -> HeldTokens? {
        guard let held = readyTokens.withLock({ $0 }), isFresh(held.tokens) else { return nil }
        emit(.usedToken)
        return held
    }

    /// The tokens in memory (nil before the first call); for tests.
    var heldTokens: TokenSet? { state.held?.tokens }

    /// Valid tokens with their `Authorization` value, through the state machine.
    func authorizationOnTheActor() async throws(AuthError) -> HeldTokens {
        let tokens = try await usableTokens()
        if let held = state.held, held.tokens.accessToken == tokens.accessToken { return held }
        return HeldTokens(tokens, stored: true)
    }

    private func publishReadyTokens() {
        let ready: HeldTokens? = if case .ready(let held) = state, held.stored { held } else { nil }
        readyTokens.withLock { $0 = ready }
    }

    /// True when `tokens` may be sent as they are (not within the leeway of expiry).
    private nonisolated func isFresh(_ tokens: TokenSet) -> Bool {
        tokens.freshness(at: clock.now(), leeway: configuration.leeway) == .fresh
    }

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

    /// The tokens held, after the first read of the store (shared by every caller that
    /// arrives before it completes: a thousand concurrent first requests, one read).
    private func loadedTokens() async throws(AuthError) -> TokenSet {
        let task: Task<Result<TokenSet?, AuthError>, Never>
        switch state {
        case .ready(let held), .refreshing(let held, _): return held.tokens
        case .loading(let running): task = running
        case .unloaded, .absent:
            if handedOver { throw .store(.locked("this token source was dropped with its store (the vault was locked)")) }
            // No tokens yet: read the store (again), so a login by another process counts.
            let account = self.account
            task = Task { await Result.awaiting { () async throws(AuthError) in try await account.loadTokens() } }
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
        .notLoggedIn(server: account.server, account: account.account)
    }

    /// Tries once more to store tokens an earlier save failed to store, over exactly the
    /// stored tokens they replace (``HeldTokens/replacing``), under the account's lock when
    /// there is one (a logout holds it too): when the store holds no tokens any more (a
    /// logout) or others (a new login), the unsaved ones are dropped, never written back.
    private func retryUnsavedTokens() async {
        // During a refresh, that refresh decides (``refreshHoldingLock(replacing:hold:)``).
        guard case .ready(let pending) = state, !pending.stored else { return }
        var hold: (any AccountLockHold)?
        if let locking = configuration.lock.locking(for: account.store) {
            // Waited for briefly: another holder (a stopped command) could keep the lock for
            // the whole lock timeout, and every use and the stop would wait with it. Not
            // held in time, the unsaved tokens are served as before and the next use tries again.
            let wait = min(configuration.lockTimeout, Self.unsavedRetryLockWait)
            guard let held = try? await locking.hold(server: account.server, account: account.account, timeout: wait) else { return }
            hold = held
        }
        try? await releasing(hold) { () async throws(AuthError) in await saveUnsaved(pending) }
    }

    /// ``retryUnsavedTokens()``'s work, holding the account's lock.
    private func saveUnsaved(_ pending: HeldTokens) async {
        // A refresh may have replaced (and stored) them while the lock was awaited.
        guard let current = state.held, current.tokens == pending.tokens, !current.stored else { return }
        do throws(AuthError) {
            let stored = try await account.loadTokens()
            guard Self.stillReplaces(stored, pending.replacing) else {
                dropUnsaved(pending, for: stored)
                return
            }
            try await account.saveTokens(pending.tokens)
            state.markStored(pending.tokens)
            logger.notice("stored the tokens that could not be stored before")
        } catch .store(.conflict) {
            // Another process stored tokens since: take theirs when they are fresh.
            if let theirs = await storedAfterConflict(), theirs.fresh, case .ready = state {
                state = .ready(HeldTokens(theirs.tokens, stored: true))
                emit(.adoptedStoredTokens)
            }
        } catch {
            logger.error("the new tokens are still not stored (\(error)); keeping them in memory")
            emit(.tokensNotSaved(error.description))
        }
    }

    /// Whether unsaved tokens that replace `replaced` may still be stored over `stored`: the
    /// store holds exactly `replaced`, or `replaced` with its refresh token forgotten. The
    /// latter is another process that offered that refresh token after this one had spent
    /// it, was refused, and recorded it as dead (``forgetDeadRefreshToken(of:)``): the
    /// unsaved tokens are its successors, not older than what the store holds.
    static func stillReplaces(_ stored: TokenSet?, _ replaced: TokenSet?) -> Bool {
        guard stored != replaced else { return true }
        guard var forgotten = replaced, let stored, stored.refreshToken == nil, forgotten.refreshToken != nil else { return false }
        forgotten.refreshToken = nil
        forgotten.refreshTokenExpiry = nil
        return stored == forgotten
    }

    /// The store holds `stored` instead of what the unsaved `pending` tokens replace: a
    /// logout (none) or a new login (others) came meanwhile. The store wins: `pending` go,
    /// the stored tokens (if any) are held instead.
    private func dropUnsaved(_ pending: HeldTokens, for stored: TokenSet?) {
        guard case .ready(let held) = state, held.tokens == pending.tokens else { return }
        if let stored {
            logger.notice("the stored tokens changed since these were refreshed (a new login?); taking the stored ones")
            state = .ready(HeldTokens(stored, stored: true))
            emit(.adoptedStoredTokens)
        } else {
            logger.warning("the stored tokens are gone (logged out); dropping the new ones that could not be stored")
            state = .absent
        }
    }

    /// The stored tokens, read after the store refused a save as a conflict (another process
    /// stored tokens since this one read them), and whether they are fresh (then theirs
    /// win; otherwise their refresh failed and this process's tokens are the newest good
    /// ones). Nil when the store cannot be read.
    private func storedAfterConflict() async -> (tokens: TokenSet, fresh: Bool)? {
        guard let theirs = try? await account.loadTokens() else { return nil }
        return (theirs, isFresh(theirs))
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
            if held.tokens.accessToken != old.accessToken, isFresh(held.tokens) { return held.tokens }
            if closing { throw stopping }
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
        let result = await Result.awaiting { () async throws(AuthError) in try await refreshUnderLock(replacing: old) }
        if becauseRejected, case .success = result { rejectionRefreshes.record(at: ContinuousClock.now) }
        guard case .refreshing(let previous, _) = state else { return result.map(\.tokens) }
        switch result {
        case .success(let new): state = .ready(HeldTokens(new.tokens, stored: new.stored, replacing: new.replacing))
        case .failure where loggedOutSeen: state = .absent
        case .failure: state = .ready(previous)
        }
        loggedOutSeen = false
        return result.map(\.tokens)
    }

    /// Under the cross-process lock: adopt what another process stored, else refresh (or
    /// log in again), then persist. Returns the tokens and whether the store took them.
    /// A lock that lapsed before the refresh (``AccountLockHold/isStillHeld()``) is taken
    /// again and the store read again, at most three times.
    private func refreshUnderLock(replacing old: TokenSet) async throws(AuthError) -> Refreshed {
        for _ in 0..<3 {
            let hold: (any AccountLockHold)?
            switch try await lockOrAdoption(replacing: old) {
            case .adopted(let tokens): return Refreshed(tokens: tokens, stored: true)
            case .locked(let held): hold = held
            }
            let done = try await releasing(hold) { () async throws(AuthError) in
                try await refreshHoldingLock(replacing: old, hold: hold)
            }
            if let done { return done }
            logger.warning("the refresh lock lapsed while this process held it (stalled past its lease); taking it again")
        }
        throw .lockTimeout("the refresh lock of \(account.account) on \(account.server) lapsed three times in a row; nothing was refreshed")
    }

    /// ``refreshUnderLock(replacing:)``'s work, once the lock is held; nil when the lock
    /// lapsed before anything was spent.
    private func refreshHoldingLock(
        replacing old: TokenSet, hold: (any AccountLockHold)?
    ) async throws(AuthError) -> Refreshed? {
        // Tokens held only in memory are newer than what they replace in the store, which
        // the server has rotated away: neither adopt nor refresh from that. Asked under the
        // lock: a retried save may have stored them while this refresh waited for it.
        let held = state.held
        var unstored = held.map { !$0.stored } ?? false
        let stored = try await account.loadTokens()
        // The store is the truth: when it no longer holds what the unsaved tokens replace,
        // a logout or a new login came meanwhile, and the unsaved tokens are not the newest.
        if unstored, stored != held?.replacing {
            logger.notice("the stored tokens changed since the unsaved ones were refreshed; the stored ones win")
            unstored = false
        }
        // Stored tokens that are gone were removed by a logout (which holds this lock too):
        // refreshing with the ones in memory would log the account back in behind its back.
        if !unstored, stored == nil {
            loggedOutSeen = true
            throw .authentication(
                "not logged in to \(account.server) as \(account.account) any more (logged out)",
                remedy: .logIn(server: account.server, account: account.account))
        }
        if !unstored, let adopted = adoptable(stored, replacing: old) {
            announceAdoption()
            return Refreshed(tokens: adopted, stored: true)
        }
        // Last checks before the refresh token is spent: still running, the lock still ours?
        if closing { throw stopping }
        if let hold, !(await hold.isStillHeld()) { return nil }
        let base = unstored ? old : (stored ?? old)
        // What the new tokens replace in the store: a failed save is retried over exactly it.
        let replacing = unstored ? held?.replacing : stored
        let new: TokenSet
        do throws(AuthError) {
            new = try await refreshOrLogIn(from: base, stored: unstored ? nil : stored)
        } catch {
            if case .interactionRequired = error { await forgetDeadRefreshToken(of: base, stored: stored) }
            throw error
        }
        var failure = await store(new)
        if case .store(.conflict)? = failure {
            // Another process stored tokens after this one read them: this one's lock must
            // have lapsed (a fleet lock whose lease expired while this process stalled). Its
            // tokens win when they are fresh; otherwise (its refresh failed, its tokens are
            // stale or dead) this refresh's are the newest good ones: store them over it,
            // now that the read is fresh.
            if let theirs = await storedAfterConflict() {
                if theirs.fresh {
                    logger.notice("another process stored new tokens while this one refreshed; taking theirs")
                    emit(.adoptedStoredTokens)
                    return Refreshed(tokens: theirs.tokens, stored: true)
                }
                failure = await store(new)
            }
        }
        guard let failure else { return Refreshed(tokens: new, stored: true) }
        reportUnsaved(failure)
        return Refreshed(tokens: new, stored: false, replacing: replacing)
    }

    /// What a refresh ended with: the tokens, whether the store took them, and if not,
    /// the stored tokens they replace (``HeldTokens/replacing``).
    private struct Refreshed: Sendable {
        var tokens: TokenSet
        var stored: Bool
        var replacing: TokenSet? = nil
    }

    /// The provider refused `base`'s refresh token for good and nothing replaced it: when the
    /// store still holds that token (`stored`), it keeps everything but it, so later
    /// requests (a cron job's every run) end at once instead of offering the dead token to
    /// the provider again. Called under the cross-process lock, with `stored` just read:
    /// nothing newer is lost.
    private func forgetDeadRefreshToken(of base: TokenSet, stored: TokenSet?) async {
        guard var dead = stored, dead.refreshToken != nil, dead.refreshToken == base.refreshToken else { return }
        dead.refreshToken = nil
        dead.refreshTokenExpiry = nil
        do throws(AuthError) {
            try await account.saveTokens(dead)
        } catch {
            logger.warning("could not record that the refresh token is dead (\(error))")
        }
    }

    /// `stored` when another process has already replaced `old` with fresh tokens. Says
    /// nothing: the caller announces an adoption it takes (``announceAdoption()``), so a
    /// poll that loses its race to the lock is not counted.
    private func adoptable(_ stored: TokenSet?, replacing old: TokenSet) -> TokenSet? {
        guard let stored, stored.accessToken != old.accessToken, isFresh(stored) else { return nil }
        return stored
    }

    /// Logs and reports (``RequesterEvent/adoptedStoredTokens``) that this source took the
    /// tokens another process stored, once per adoption.
    private func announceAdoption() {
        logger.debug("another process refreshed already; adopting its tokens")
        emit(.adoptedStoredTokens)
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
                await Result<LockOrTokens, AuthError>.awaiting { () async throws(AuthError) in
                    .locked(try await locking.hold(server: server, account: name, timeout: timeout))
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.adoptionPollInterval)
                    if Task.isCancelled { return nil }
                    if await self.closing { return .failure(await self.stopping) }
                    if mayAdopt, let tokens = await self.storedTokensToAdopt(replacing: old) { return .success(.adopted(tokens)) }
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
        if case .success(.adopted) = outcome { announceAdoption() }
        return try outcome.get()
    }

    /// How long a retried save of unsaved tokens waits for the account's lock.
    static let unsavedRetryLockWait: Duration = .seconds(1)

    /// How often a process waiting for the refresh lock looks for tokens another stored.
    static let adoptionPollInterval: Duration = .milliseconds(200)

    /// Stored tokens that replace `old` and are fresh, read now; nil otherwise.
    private func storedTokensToAdopt(replacing old: TokenSet) async -> TokenSet? {
        guard let stored = try? await account.loadTokens() else { return nil }
        return adoptable(stored, replacing: old)
    }

    /// A refresh with `base`'s refresh token, or, when that fails for good, a silent login.
    /// When the provider refused the refresh token and the silent login fails too (a
    /// rejected or cooling-down password, a network error), the dead refresh token is
    /// forgotten (`stored` is what the store holds under the lock), so later commands go
    /// straight to the silent login and its cool-down instead of offering it again. (An
    /// account only a person can sign in to: its caller forgets it.)
    private func refreshOrLogIn(from base: TokenSet, stored: TokenSet?) async throws(AuthError) -> TokenSet {
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
            guard case .authentication(let why, _, _) = error else { throw error }
            // An account a person signed in through the browser or on another device has no
            // stored credentials to log in with: only a new `vault login` helps.
            guard provider.canLogInSilently else { throw .interactionRequired(why) }
            guard let reauthenticator else { throw error }
            logger.notice("the refresh token is dead (\(error)); logging in again with the stored credentials")
            do throws(AuthError) {
                let new = try await reauthenticator.reauthenticate(account: account, provider: provider, after: error)
                emit(.loggedInAgain)
                return new
            } catch {
                await forgetDeadRefreshToken(of: base, stored: stored)
                throw error
            }
        }
    }

    /// Stores `new`; nil when stored, else the store's error (then the caller keeps them in
    /// memory, stored on the next use, rather than losing tokens the server has already
    /// rotated to, and says so with ``reportUnsaved(_:)``).
    private func store(_ new: TokenSet) async -> AuthError? {
        let saved = await Result.awaiting { () async throws(AuthError) in try await account.saveTokens(new) }
        if case .failure(let error) = saved { return error }
        return nil
    }

    /// Says once that new tokens are held in memory only.
    private func reportUnsaved(_ error: AuthError) {
        logger.error("could not store the new tokens (\(error)); keeping them in memory and trying again on next use")
        emit(.tokensNotSaved(error.description))
    }

    private nonisolated func emit(_ event: RequesterEvent) { onEvent(event) }
}
