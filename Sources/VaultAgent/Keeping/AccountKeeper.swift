// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Logging
import VaultAuth
import VaultStore
import VaultSync

/// One account the agent serves: its ``TokenSource`` (made from the store while the vault
/// is unlocked) and, when the account is kept, a task of its own that refreshes ahead of
/// time (``KeepAliveSchedule``) and keeps its token files. Nothing here is shared with
/// another account: a slow or dead provider holds up this account's task only, and an
/// answer about another account never waits for it.
///
/// A failure that needs a person (a dead session, rejected credentials, a misconfigured
/// client) is logged once and recorded; the account is then not refreshed again until its
/// stored tokens change (a new login). Transient failures are retried with a bounded
/// backoff.
final class AccountKeeper: Sendable {
    /// What ``status()`` reports.
    struct Status: Sendable {
        var account: KeptAccount
        var kept: Bool
        var nextRefreshAt: Date?
        var lastRefreshAt: Date?
        var lastError: String?
        var needsLogin: Bool
    }

    private enum Phase: Sendable {
        case active
        /// Not refreshed until the stored tokens differ from `stored` (nil: there were none).
        case needsLogin(stored: TokenDates?)
    }

    private struct State {
        var source: Task<Result<TokenSource, AuthError>, Never>?
        var sourceGeneration = -1
        /// Hand-overs of dropped sources still under way (a refresh they had sent runs to its
        /// store write first): a new source waits for them, the stop too.
        var handOvers: [Int: Task<Void, Never>] = [:]
        var nextHandOver = 0
        /// Tokens a dropped source could not store, for the next source to store (``TokenSource/carry(_:)``).
        var carried: UnsavedTokens?
        var phase = Phase.active
        var kept = false
        /// Set by ``retire()`` (the agent stops): no source is made and no keeping starts again.
        var retired = false
        var loop: Task<Void, Never>?
        var nextRefreshAt: Date?
        var lastRefreshAt: Date?
        var lastError: String?
        /// A removal of the token files failed (a directory that turned unsafe): tried again at each turn.
        var removalPending = false
        /// The token files were removed since the loop last looked: what it wrote is gone.
        var filesRemoved = false
        /// Token events seen (refreshes, adoptions, re-logins) and how the last one got its tokens.
        var events = 0
        /// How many changes of the user's (``storeChanged(in:)``) began: a state decided
        /// before a later one began is not recorded over it.
        var userChanges = 0
        var lastHow = "held"
    }

    let account: KeptAccount
    /// The files kept holding this account's access token.
    let tokenFiles: [String]
    private let vault: VaultHolder
    private let configuration: AgentConfiguration
    private let tuning: Agent.Tuning
    private let schedule: KeepAliveSchedule
    private let loops: LoopCounter
    private let wakeup = Wakeup()
    private let state = Locked(State())
    /// The token files' generation, held while they are written or removed (off the pool):
    /// a write of tokens read before a ``storeChanged(in:)`` is refused, so a logout's
    /// removal of the files is never undone by a write already under way.
    private let files = Locked(0)
    private var logger: Logger { configuration.logger }

    init(account: KeptAccount, vault: VaultHolder, configuration: AgentConfiguration, tuning: Agent.Tuning, loops: LoopCounter) {
        self.account = account
        self.tokenFiles = configuration.tokenFiles.filter { $0.account == account }.map(\.path)
        self.vault = vault
        self.configuration = configuration
        self.tuning = tuning
        self.schedule = KeepAliveSchedule(leeway: configuration.requester.leeway, keepAlive: configuration.keepAlive)
        self.loops = loops
    }

    // MARK: - Serving

    /// The account's token source, made from the store now held (once per unlock, shared
    /// by every caller); `.store(.locked)` while the vault is locked.
    func source() async throws(AuthError) -> TokenSource {
        guard let current = vault.current() else { throw .store(.locked(Agent.lockedReason)) }
        let (store, generation) = (current.store, current.generation)
        let task: Task<Result<TokenSource, AuthError>, Never>? = state.withLock { state in
            // A stopping agent makes no source: one made after the stop closed the others
            // could spend a refresh token while the process exits, before its store write.
            if state.retired { return nil }
            if let running = state.source, state.sourceGeneration == generation { return running }
            let task = Task { await self.makeSource(store) }
            // A lock that came since the store was taken leaves nothing made from it behind.
            if vault.generation == generation {
                state.source = task
                state.sourceGeneration = generation
            }
            return task
        }
        guard let task else { throw Self.stopping(account) }
        let result = await task.value
        if case .failure = result {
            state.withLock { state in if state.source == task { state.source = nil } }
        }
        return try result.get()
    }

    private func makeSource(_ store: any SecureStore) async -> Result<TokenSource, AuthError> {
        // Tokens an earlier source could not store are carried over, never lost to a lock.
        await handOversDone()
        let session = AuthSession(
            store: store, server: account.server, account: account.account, transport: configuration.transport,
            configuration: configuration.requester, reauthentication: configuration.reauthentication, logger: logger)
        let made = await Result.awaiting { () async throws(AuthError) in
            try await session.tokenSource { [weak self] event in self?.record(event) }
        }
        if case .success(let source) = made, let carried = state.withLock({ $0.carried.take() }) {
            await source.carry(carried)
        }
        return made
    }

    /// Waits for the hand-overs of the sources dropped so far.
    private func handOversDone() async {
        for task in state.withLock({ Array($0.handOvers.values) }) { await task.value }
    }

    /// Counts a token event and wakes the keeper, which rewrites its files for new tokens.
    private func record(_ event: RequesterEvent) {
        let how: String? =
            switch event {
            case .refreshed: "refreshed"
            case .adoptedStoredTokens: "adopted"
            case .loggedInAgain: "logged in again"
            default: nil
            }
        guard let how else { return }
        state.withLock { state in
            state.events += 1
            state.lastHow = how
        }
        wakeup.wake()
    }

    /// How many token events were seen so far (see ``how(since:)``).
    var eventCount: Int { state.withLock { $0.events } }

    /// How the tokens of a call that began at `events` were got: "held" when no refresh,
    /// adoption or re-login happened meanwhile, else the last of them.
    func how(since events: Int) -> String {
        state.withLock { $0.events == events ? "held" : $0.lastHow }
    }

    /// The source made for the store held now, when one was made and is ready.
    private func heldSource() async -> TokenSource? {
        let task: Task<Result<TokenSource, AuthError>, Never>? = state.withLock { state in
            state.source != nil && state.sourceGeneration == vault.generation ? state.source : nil
        }
        guard let task, case .success(let source) = await task.value else { return nil }
        return source
    }

    /// Forgets the token source and the store it holds (at a lock, or after a new login).
    /// The source is handed over (``TokenSource/handOver()``): it touches its store no more,
    /// and the tokens it could not store are carried to the next source; then it is gone,
    /// and with it the store's keys.
    func dropSource() {
        state.withLock { state in
            defer {
                state.source = nil
                state.sourceGeneration = -1
            }
            guard let source = state.source else { return }
            let number = state.nextHandOver
            state.nextHandOver += 1
            state.handOvers[number] = Task {
                if case .success(let dropped) = await source.value, let unsaved = await dropped.handOver() {
                    self.state.withLock { $0.carried = unsaved }
                }
                self.state.withLock { _ = $0.handOvers.removeValue(forKey: number) }
            }
        }
        wakeup.wake()
    }

    /// The user changed this account's items (`vault logout`, `remove`, `login`): the
    /// source goes, so nothing held is served again, and the store (when the vault is
    /// unlocked: `store`) decides what follows. No tokens stored: the token files are
    /// removed before this returns and the account waits for a login. Tokens stored: the
    /// keeper takes them up at once.
    @discardableResult
    func storeChanged(in store: (any SecureStore)?) async -> String? {
        let change = state.withLock { state in
            state.userChanges += 1
            return state.userChanges
        }
        let stored: TokenSet??
        if let store {
            stored = try? await AccountItems(store: store, server: account.server, account: account.account).loadTokens()
        } else {
            stored = nil
        }
        // Unsaved tokens that still replace what the store holds are the only copy of the
        // rotated refresh token: a change that left their predecessor (a remove of another
        // item, a passwordless re-read) keeps them (attack review 48).
        if case .some(.some(let now)) = stored, await heldSource()?.stillHolds(afterStoreChangedTo: now) == true {
            wakeup.wake()
            return nil
        }
        var problem: String?
        dropSource()
        switch stored {
        case .some(.none):
            // The files go first: whoever sees the state "needs login" finds no stale token file.
            problem = await removeFiles(because: "the account was logged out")
            // A login that came meanwhile decided after this one.
            state.withLock { state in
                guard state.userChanges == change else { return }
                state.phase = .needsLogin(stored: nil)
                state.lastError = "logged out"
                state.nextRefreshAt = nil
            }
            logger.notice("\(account) was logged out; serving none of its tokens")
        case .some(.some):
            state.withLock { state in
                if case .needsLogin = state.phase { state.lastError = nil }
                state.phase = .active
            }
            await bumpFiles()
        case .none:
            // The store cannot be read (locked, failing): what the files hold may be stale.
            problem = await removeFiles(because: "the account's items changed and the store cannot be read now")
        }
        wakeup.wake()
        return problem
    }

    /// Why a request is declined once the agent stops: the client does the work itself.
    static func stopping(_ account: KeptAccount) -> AuthError {
        .lockTimeout("the agent is stopping; \(account) is served by the caller")
    }

    /// Closes every token source this keeper made (``TokenSource/close()``): no refresh
    /// token is spent after this, and the refreshes already sent are stored when it returns.
    /// Called after ``retire()``, so no source is made after the ones it closes.
    func closeSources() async {
        await handOversDone()
        if let task = state.withLock({ $0.source }), case .success(let source) = await task.value { await source.close() }
        // Carried tokens no source took up yet: one try to store them while the vault is open.
        if state.withLock({ $0.carried != nil }), let store = vault.current()?.store,
            case .success(let source) = await makeSource(store)
        {
            await source.close()
        }
        if state.withLock({ $0.carried.take() }) != nil {
            logger.warning(
                "\(account): stopping while the vault is locked, with tokens the store refused: they are lost, and the next refresh needs a new login"
            )
        }
    }

    /// Wakes the keeper's task to look again (an unlock, a rescan).
    func wake() { wakeup.wake() }

    func status() -> Status {
        state.withLock { state in
            let needsLogin: Bool = if case .needsLogin = state.phase { true } else { false }
            return Status(
                account: account, kept: state.kept, nextRefreshAt: state.nextRefreshAt, lastRefreshAt: state.lastRefreshAt,
                lastError: state.lastError, needsLogin: needsLogin)
        }
    }

    // MARK: - Keeping

    /// Starts the keep-alive task (once); nothing once the keeper is retired.
    func startKeeping() {
        state.withLock { state in
            guard !state.retired else { return }
            state.kept = true
            guard state.loop == nil else { return }
            loops.enter()
            state.loop = Task {
                await self.keep()
                self.loops.leave()
            }
        }
    }

    /// Stops the keep-alive task; a write under way finishes first (``Agent/stop()`` waits for it).
    func stopKeeping() {
        let loop: Task<Void, Never>? = state.withLock { state in
            state.kept = false
            defer { state.loop = nil }
            return state.loop
        }
        loop?.cancel()
        wakeup.wake()
    }

    /// For the agent's stop: stops keeping for good. No keeping starts again (a rescan
    /// under way at the stop cannot restart it) and ``source()`` makes no new source, so
    /// the sources ``closeSources()`` closes afterwards are all there will ever be.
    func retire() {
        state.withLock { $0.retired = true }
        stopKeeping()
    }

    /// What the keep-alive task remembers between its turns.
    private struct Memory {
        /// The dates of the tokens last seen.
        var seen: TokenDates?
        /// The dates of the tokens the token files hold (nil: none written, or removed).
        var written: TokenDates?
        var planned: Date?
        var absoluteWindowEnd: Date?
        var backoff: Backoff
    }

    /// The keep-alive loop: until cancelled, one turn at a time.
    private func keep() async {
        var memory = Memory(backoff: Backoff(first: tuning.firstRetry, maximum: tuning.maximumRetry))
        while !Task.isCancelled {
            await turn(&memory)
        }
    }

    private func turn(_ memory: inout Memory) async {
        guard let store = vault.current()?.store else {
            setNextRefresh(nil)
            if let seen = memory.seen, seen.accessTokenExpiry <= Date(), memory.written != nil {
                await removeFiles(because: "the vault is locked and the access token expired")
                memory.written = nil
            }
            await wakeup.wait(for: tuning.lockedPoll)
            return
        }
        if state.withLock({ $0.removalPending }) { await removeFiles(because: "it was due to go") }
        if state.withLock({ state in
            defer { state.filesRemoved = false }; return state.filesRemoved
        }) {
            memory.written = nil
        }
        if case .needsLogin(let stored) = state.withLock({ $0.phase }) {
            await wakeup.wait(for: tuning.rescanInterval)
            await resumeAfterNewLogin(in: store, since: stored, &memory)
            return
        }
        let due = memory.planned.map { $0 <= Date() } ?? false
        let seen = memory.seen
        // Taken before the tokens are read: a logout meanwhile makes their write a no-op.
        let generation = fileGeneration
        let outcome = await Result.awaiting { () async throws(AuthError) in
            let source = try await self.source()
            let current = try await source.token()
            // New tokens got meanwhile (a client's refresh, another process's) count as the refresh.
            guard due, let seen, !TokenDates(current).differ(from: seen) else { return (current, false) }
            return (try await source.refreshAhead(), true)
        }
        if Task.isCancelled { return }
        switch outcome {
        case .success(let (tokens, refreshedAhead)):
            await keepUp(with: tokens, refreshedAhead: refreshedAhead, fileGeneration: generation, &memory)
            let delay = max(memory.planned!.timeIntervalSince(Date()), tuning.minimumGap)
            await wakeup.wait(for: .milliseconds(Int64(delay * 1000)))
        case .failure(let error) where Self.needsPerson(error):
            await enterNeedsLogin(error, store: store, &memory)
        case .failure(let error):
            let delay = memory.backoff.next()
            let line = Agent.oneLine(error)
            state.withLock { state in
                state.lastError = line
                state.nextRefreshAt = Date().addingTimeInterval(Self.seconds(delay))
            }
            logger.warning("\(account): \(due ? "refresh" : "reading the tokens") failed (\(line)); trying again in \(delay)")
            if let seen = memory.seen, seen.accessTokenExpiry <= Date(), memory.written != nil {
                await removeFiles(because: "its access token expired and cannot be refreshed")
                memory.written = nil
            }
            await wakeup.wait(for: delay)
        }
    }

    /// Records `tokens`, writes them to the token files when they are new, plans the next refresh.
    private func keepUp(with tokens: TokenSet, refreshedAhead: Bool, fileGeneration: Int, _ memory: inout Memory) async {
        let dates = TokenDates(tokens)
        if refreshedAhead, let previous = memory.seen, schedule.plansForWindow(previous, absoluteWindowEnd: memory.absoluteWindowEnd),
            let before = previous.refreshTokenExpiry, let after = dates.refreshTokenExpiry, after <= before.addingTimeInterval(1)
        {
            memory.absoluteWindowEnd = after
            logger.notice("\(account): refreshing does not extend the refresh token's lifetime; keeping ahead of the access token only")
        }
        let renewed = memory.seen.map { dates.differ(from: $0) } ?? false
        memory.seen = dates
        memory.backoff.reset()
        if memory.written.map({ dates.differ(from: $0) }) ?? true, !tokenFiles.isEmpty {
            if await writeFiles(tokens.accessToken.bytes, generation: fileGeneration) { memory.written = dates }
        }
        let planned = schedule.nextRefresh(for: dates, absoluteWindowEnd: memory.absoluteWindowEnd)
        memory.planned = planned
        state.withLock { state in
            state.nextRefreshAt = max(planned, Date())
            state.lastRefreshAt = dates.obtainedAt
            state.lastError = nil
        }
        if refreshedAhead {
            logger.info("\(account): refreshed ahead; next refresh at \(planned)")
        } else if renewed {
            // Refreshed when served (a token that expired first), or by another process.
            logger.info("\(account): new tokens; next refresh at \(planned)")
        }
    }

    /// Records a failure that needs a person, once; removes the token files.
    private func enterNeedsLogin(_ error: AuthError, store: any SecureStore, _ memory: inout Memory) async {
        let change = state.withLock { $0.userChanges }
        let stored = try? await AccountItems(store: store, server: account.server, account: account.account).loadTokens()
        let line = Agent.oneLine(error)
        // The files go first: whoever sees the state "needs login" finds no stale token file.
        await removeFiles(because: "the account needs a person to log in again")
        // A login (or logout) that came meanwhile decided after this failure: keep its state.
        let recorded: Bool = state.withLock { state in
            guard state.userChanges == change else { return false }
            state.phase = .needsLogin(stored: stored.map(TokenDates.init))
            state.lastError = line
            state.nextRefreshAt = nil
            return true
        }
        guard recorded else { return }
        logger.warning("\(account) needs a person to log in again (\(line)); not refreshing it until it does")
        memory = Memory(backoff: Backoff(first: tuning.firstRetry, maximum: tuning.maximumRetry))
    }

    /// Back to keeping when the stored tokens changed since the account needed a person.
    private func resumeAfterNewLogin(in store: any SecureStore, since before: TokenDates?, _ memory: inout Memory) async {
        guard !Task.isCancelled,
            let stored = try? await AccountItems(store: store, server: account.server, account: account.account).loadTokens()
        else { return }
        let dates = TokenDates(stored)
        guard before.map({ dates.differ(from: $0) }) ?? true else { return }
        state.withLock { state in
            state.phase = .active
            state.lastError = nil
        }
        dropSource()
        logger.notice("\(account): new tokens are stored (a new login); keeping the account again")
    }

    private func setNextRefresh(_ date: Date?) { state.withLock { $0.nextRefreshAt = date } }

    // MARK: - Token files

    /// The token files' generation now: given to ``writeFiles(_:generation:)`` by a turn
    /// that reads its tokens after this.
    private var fileGeneration: Int { files.withLock { $0 } }

    /// Writes `token` to every token file, unless the files changed hands since
    /// `generation` (a logout removed them): true when all of them took it.
    private func writeFiles(_ token: [UInt8], generation: Int) async -> Bool {
        let paths = tokenFiles
        let own = configuration.tokenFileOwnPlaces
        let outcome: [TokenFile.Failure]? = await Blocking.run { [files] in
            files.withLock { current -> [TokenFile.Failure]? in
                guard current == generation else { return nil }
                var failures: [TokenFile.Failure] = []
                for path in paths {
                    do throws(TokenFile.Failure) {
                        // Checked again before each write: a directory on the way may have changed hands.
                        try TokenFile.write(token, to: path, approve: TokenFilePlace.approval(for: path, own: own))
                    } catch {
                        failures.append(error)
                    }
                }
                return failures
            }
        }
        guard let failures = outcome else {
            logger.info("\(account): the tokens changed while the token file was due; not written")
            return false
        }
        for failure in failures { logger.error("\(account): the token file could not be written (\(failure))") }
        return failures.isEmpty
    }

    /// Removes every token file, saying why; a write of tokens read before this is refused.
    /// Returns why one could not be removed (it is tried again at the keeper's next turns), or nil.
    @discardableResult
    private func removeFiles(because why: String) async -> String? {
        let paths = tokenFiles
        let own = configuration.tokenFileOwnPlaces
        let results: [(String, Result<Bool, TokenFile.Failure>)] = await Blocking.run { [files] in
            files.withLock { generation in
                generation += 1
                return paths.map { path in
                    (
                        path,
                        Result { () throws(TokenFile.Failure) in try TokenFile.remove(path, approve: TokenFilePlace.approval(for: path, own: own)) }
                    )
                }
            }
        }
        var failures: [String] = []
        for (path, result) in results {
            switch result {
            case .success(true): logger.warning("removed the token file \(TextEscaping.escaped(path)): \(why)")
            case .success(false): break
            case .failure(let failure):
                failures.append(failure.description)
                logger.error("\(account): the token file could not be removed (\(failure)); trying again")
            }
        }
        state.withLock { state in
            state.removalPending = !failures.isEmpty
            // Whatever the loop wrote is gone: its next turn writes the tokens again (attack review 48b).
            state.filesRemoved = true
        }
        return failures.isEmpty ? nil : "the token file could not be removed: " + failures.joined(separator: "; ")
    }

    /// Refuses every write of tokens read before now (they were replaced in the store).
    private func bumpFiles() async {
        await Blocking.run { [files] in files.withLock { $0 += 1 } }
    }

    // MARK: - Rules

    /// True when only a person can help: refreshing again would change nothing.
    static func needsPerson(_ error: AuthError) -> Bool {
        switch error {
        case .authentication, .interactionRequired, .configuration, .invalidRequest: true
        default: error.remedy != nil
        }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

/// How many keep-alive tasks run, so ``Agent/stop()`` can wait for them (and for the
/// writes they have under way), bounded.
final class LoopCounter: Sendable {
    private let running = Locked(0)
    func enter() { running.withLock { $0 += 1 } }
    func leave() { running.withLock { $0 -= 1 } }
    var count: Int { running.withLock { $0 } }
}

extension Result where Failure == AuthError {
    /// `body`'s result as a value.
    static func awaiting(_ body: () async throws(AuthError) -> Success) async -> Result<Success, AuthError> {
        do throws(AuthError) {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }
}
