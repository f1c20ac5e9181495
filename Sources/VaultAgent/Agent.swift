// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Logging
import VaultAgentProtocol
import VaultAuth
import VaultStore
import VaultSync

/// The agent's state: the accounts it keeps alive, their token sources, token files and
/// the store's key. Answers the socket's requests (``AgentServing``).
///
/// - Accounts: ``AgentConfiguration/accounts``, or every account with stored tokens,
///   looked for again every ``Tuning/rescanInterval`` (a new login is kept, a logout
///   dropped), and the accounts of the token files. Each has an ``AccountKeeper`` with a
///   task of its own, so one account's slow provider never holds up another's, nor an answer.
/// - `token`: the account's ``TokenSource`` answers (a fresh token held in memory: no store
///   read, no network); any ``AuthError`` is declined with its one line, so the client does
///   the work itself and reports exactly as without an agent.
/// - `lock`: the store, and every token source made from it, is dropped with its keys; a
///   later request (or the periodic tick) opens the store again from the key cache alone
///   (``AgentConfiguration/openStore``, `afterLock`), or declines: the vault is locked.
public actor Agent: AgentServing {
    /// The agent's version line, answered to `ping` and shown by `vault agent --check` and
    /// `vault status`: the release and the wire format's version.
    public static let versionLine = "vault-agent \(VaultRelease.version) (protocol \(AgentFrame.version))"

    /// The timing of the agent's own work; the defaults suit a service, tests shorten them.
    public struct Tuning: Sendable {
        /// How often the store is listed again for accounts logged in or out, and a keeper
        /// waiting for a new login looks at the store (default 30 s).
        public var rescanInterval: Duration = .seconds(30)
        /// How often, while the vault is locked, the key cache is tried (default 5 s).
        public var lockedPoll: Duration = .seconds(5)
        /// The first retry after a transient failure (default 2 s), doubling up to `maximumRetry`.
        public var firstRetry: Duration = .seconds(2)
        /// The longest wait between retries (default 60 s).
        public var maximumRetry: Duration = .seconds(60)
        /// The shortest time between two refreshes of an account, in seconds (default 1).
        public var minimumGap: TimeInterval = 1
        /// How long ``Agent/stop()`` waits for the keepers' work under way (default 5 s).
        public var stopTimeout: Duration = .seconds(5)
        /// How long ``Agent/stop()`` waits for refreshes already sent to be stored (default
        /// 60 s: the provider's timeout and a store write fit well within it).
        public var refreshDrainTimeout: Duration = .seconds(60)
        /// Whether ``Agent/start()`` makes the process not dumpable and locks its memory
        /// where the limit allows (default true; tests running the agent in-process turn it off).
        public var hardensProcess = true

        /// The defaults.
        public init() {}
    }

    /// Why a request is declined while the vault is locked.
    public static let lockedReason = "the vault is locked; run vault unlock"

    public let configuration: AgentConfiguration
    public nonisolated let tuning: Tuning
    private nonisolated let vault: VaultHolder
    private nonisolated let keepers = Locked<[KeptAccount: AccountKeeper]>([:])
    /// Set by ``stop()``, inside `keepers`' lock: no keeper is made or started after it.
    private nonisolated let stopping = Locked(false)
    private nonisolated let loops = LoopCounter()
    private nonisolated let ticker = Wakeup()
    private var tickTask: Task<Void, Never>?
    private var started = false

    public init(configuration: AgentConfiguration) {
        self.init(configuration: configuration, tuning: Tuning())
    }

    public init(configuration: AgentConfiguration, tuning: Tuning) {
        self.configuration = configuration
        self.tuning = tuning
        self.vault = VaultHolder(openStore: configuration.openStore, logger: configuration.logger)
    }

    /// Starts keeping the accounts (refreshes ahead of expiry, token files) until `stop()`:
    /// hardens the process, opens the store, finds the accounts, starts their keepers.
    public func start() async {
        guard !started else { return }
        started = true
        if tuning.hardensProcess {
            let outcome = MemoryHardening.apply()
            if let why = outcome.memoryNotLockedBecause { configuration.logger.notice("memory is not locked: \(why)") }
            if outcome.dumpable { configuration.logger.warning("the process could not be made not dumpable") }
        }
        await vault.openInitially()
        await rescan()
        let interval = (tuning.rescanInterval, tuning.lockedPoll)
        let leased = configuration.keyLease != nil
        tickTask = Task { [weak self] in
            var lastScan = ContinuousClock.now
            while !Task.isCancelled {
                guard let self else { return }
                await self.ticker.wait(for: self.vault.isLocked || leased ? interval.1 : interval.0)
                if Task.isCancelled { return }
                if self.vault.isLocked {
                    _ = await self.unlockedStore()
                } else if await self.unlockedStore() != nil, !leased || ContinuousClock.now - lastScan >= interval.0 {
                    lastScan = ContinuousClock.now
                    await self.rescan()
                }
            }
        }
    }

    /// The line the agent starts with: where it serves, the accounts it keeps alive, its
    /// token files (paths escaped).
    public nonisolated func startLine(serving place: String) -> String {
        let kept = keepers.withLock { $0.values.filter { $0.status().kept }.map { "\($0.account)" } }.sorted()
        let accounts =
            configuration.accounts == nil
            ? "keeping every account logged in (\(kept.count) now\(kept.isEmpty ? "" : ": " + kept.joined(separator: ", ")))"
            : "keeping \(kept.isEmpty ? "no account" : kept.joined(separator: ", "))"
        let files = configuration.tokenFiles.map { TextEscaping.escaped($0.path) }
        return "serving at \(place); \(accounts)\(files.isEmpty ? "" : "; token files: " + files.joined(separator: ", "))"
    }

    /// Stops every keep-alive task and waits (at most ``Tuning/stopTimeout``) for the work
    /// they have under way, token file writes among it.
    ///
    /// From the stop on no refresh token is spent: no keeper is made (a request for an
    /// account not served yet is declined, and its client does the work itself), none is
    /// started again (a rescan under way), and no keeper makes a new token source. The
    /// sources there are get closed, and a refresh already sent is stored before this returns.
    public func stop() async {
        let all = keepers.withLock { keepers in
            stopping.withLock { $0 = true }
            return Array(keepers.values)
        }
        tickTask?.cancel()
        ticker.wake()
        tickTask = nil
        for keeper in all { keeper.retire() }
        // No refresh token is spent from here on; one already sent is stored before the exit.
        let drained = await Self.finishes(within: tuning.refreshDrainTimeout) {
            await withTaskGroup(of: Void.self) { group in
                for keeper in all { group.addTask { await keeper.closeSources() } }
            }
        }
        if !drained { configuration.logger.warning("stopping with a refresh still unanswered: its rotation may be lost") }
        let deadline = ContinuousClock.now + tuning.stopTimeout
        while loops.count > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if loops.count > 0 { configuration.logger.warning("stopping with \(loops.count) account(s) still busy") }
    }

    /// Whether `work` finishes within `timeout`; past it, this returns false and `work`
    /// goes on unawaited (the process is about to exit).
    static func finishes(within timeout: Duration, _ work: @escaping @Sendable () async -> Void) async -> Bool {
        let waiting = FirstAnswer()
        return await withCheckedContinuation { continuation in
            waiting.slot.withLock { $0 = continuation }
            Task {
                await work()
                waiting.answer(true)
            }
            Task {
                try? await Task.sleep(for: timeout)
                waiting.answer(false)
            }
        }
    }

    /// A continuation resumed once, by whichever answer comes first.
    private final class FirstAnswer: Sendable {
        let slot = Locked<CheckedContinuation<Bool, Never>?>(nil)
        func answer(_ value: Bool) { slot.withLock { $0.take() }?.resume(returning: value) }
    }

    public nonisolated func answer(_ request: AgentRequest) async -> AgentAnswer {
        switch request {
        case .ping: return .done(AgentPingReply(versionLine: Self.versionLine))
        case .lock: return lock()
        case .status(let store):
            guard store == configuration.storeKey else { return Self.otherStore }
            // A key back in the cache (`vault unlock`) shows at once; a locked vault is reported, not declined.
            _ = await unlockedStore()
            return .done(AgentStatusReply(json: Array(status().json().utf8)))
        case .token(let store, let server, let account, let rejected):
            guard store == configuration.storeKey else { return Self.otherStore }
            return await token(KeptAccount(server: server, account: account), rejected: rejected)
        case .load(let store, let server, let account):
            guard store == configuration.storeKey else { return Self.otherStore }
            return await load(server: server, account: account)
        case .changed(let store, let server, let account):
            guard isMine(store) else { return Self.otherStore }
            if let problem = await changed(KeptAccount(server: server, account: account)) { return .declined(reason: problem) }
            return .done(AgentEmptyReply())
        case .rekeyed(let store):
            guard isMine(store) else { return Self.otherStore }
            _ = lock()
            configuration.logger.notice("the vault has a new passphrase: dropped the old key")
            // Open again at once when the key cache holds the new key (vault passwd puts it there).
            _ = await unlockedStore()
            return .done(AgentEmptyReply())
        }
    }

    /// Whether a notice naming `store` is about this agent's store: its key as the
    /// commands spell it, or as the backend it decided on names it.
    private nonisolated func isMine(_ store: String) -> Bool {
        store == configuration.storeKey || configuration.otherStoreKeys.contains(store)
    }

    // MARK: - The vault, for the Secret Service provider

    /// The store while the vault is unlocked: opened again from the key cache when it was
    /// locked and the cache holds the key again (`vault unlock`); nil while it stays locked.
    /// A key lease that ran out locks it first, as for every answer.
    public nonisolated func unlockedVault() async -> (any SecureStore)? {
        await unlockedStore()?.store
    }

    /// Whether the vault's key is not held now.
    public nonisolated var vaultIsLocked: Bool { vault.isLocked }

    /// Drops the vault's keys, as `vault lock` makes the agent do, and forgets the key kept
    /// in the key cache (what `vault lock` itself does), so the vault stays locked until
    /// `vault unlock`: a Secret Service client's `Lock`.
    public nonisolated func lockVault() {
        if let file = vault.current()?.store as? EncryptedFileStore {
            do throws(VaultError) {
                try file.forgetCachedKey()
            } catch {
                configuration.logger.warning("the key cache could not forget the vault's key (\(error))")
            }
        }
        _ = lock()
    }

    /// Calls `handler` after every lock and unlock of the vault.
    public nonisolated func onVaultLockChange(_ handler: @escaping @Sendable () -> Void) { vault.observe(handler) }

    // MARK: - Answers

    private static let otherStore = AgentAnswer.declined(reason: "the agent serves another store")

    private nonisolated func token(_ account: KeptAccount, rejected: [UInt8]?) async -> AgentAnswer {
        guard let store = await unlockedStore()?.store else { return .declined(reason: Self.lockedReason) }
        let keeper: AccountKeeper
        switch await findKeeper(for: account, in: store) {
        case .success(let found): keeper = found
        case .failure(let error): return .declined(reason: Self.oneLine(error))
        }
        let events = keeper.eventCount
        do throws(AuthError) {
            let source = try await keeper.source()
            var tokens = try await source.token()
            if let rejected, tokens.accessToken == Secret(bytes: rejected) {
                tokens = try await source.replacement(afterRejectionOf: tokens)
            }
            let expiry = Int64(tokens.accessTokenExpiry.timeIntervalSince1970.rounded(.down))
            return .done(AgentTokenReply(accessToken: tokens.accessToken.bytes, expiresAt: expiry, how: keeper.how(since: events)))
        } catch {
            return .declined(reason: Self.oneLine(error))
        }
    }

    private nonisolated func load(server: String, account: String) async -> AgentAnswer {
        guard let store = await unlockedStore()?.store else { return .declined(reason: Self.lockedReason) }
        let key = CredentialKey(server: server, account: account)
        let result = await Result.awaitingBlocking { () throws(VaultError) in
            try ServerSpelling.load(try key.validated(), in: store)
        }
        switch result {
        case .success(let credential?): return .done(AgentLoadReply(secret: credential.secret.bytes, label: credential.label))
        case .success(nil): return .declined(reason: "no item for account \"\(account)\" on server \"\(server)\"")
        case .failure(let error): return .declined(reason: Self.oneLine(error))
        }
    }

    /// The user changed `account`'s items (a logout, a removal, a new login): its keeper
    /// drops what it holds and looks at the store again (removing the token files when the
    /// store holds no tokens), then the accounts to keep are found again.
    private nonisolated func changed(_ account: KeptAccount) async -> String? {
        var problem: String?
        if let keeper = keepers.withLock({ $0[account] }) {
            problem = await keeper.storeChanged(in: vault.current()?.store)
        }
        await rescan()
        return problem
    }

    private nonisolated func lock() -> AgentAnswer {
        let held = vault.lock()
        for keeper in keepers.withLock({ Array($0.values) }) { keeper.dropSource() }
        if held { configuration.logger.notice("locked: the store's keys and every token source were dropped") }
        return .done(AgentEmptyReply())
    }

    private nonisolated func status() -> AgentStatusReport {
        let all = keepers.withLock { Array($0.values) }.map { $0.status() }
            .sorted { ($0.account.server, $0.account.account) < ($1.account.server, $1.account.account) }
        return AgentStatusReport(agent: Self.versionLine, locked: vault.isLocked, keepers: all)
    }

    // MARK: - Accounts

    /// The store, opened again from the key cache when the vault is locked; the keepers are
    /// woken when it opens.
    private nonisolated func unlockedStore() async -> (store: any SecureStore, generation: Int)? {
        if let current = vault.current() {
            guard let lease = configuration.keyLease, !lease(current.store) else { return current }
            _ = lock()
            configuration.logger.notice("the key cache no longer holds the vault's key (its time ran out, or vault lock): locked")
            return nil
        }
        guard let opened = await vault.availableStore() else { return nil }
        configuration.logger.notice("unlocked again: the key cache opened the store")
        for keeper in keepers.withLock({ Array($0.values) }) { keeper.wake() }
        return opened
    }

    /// The account's keeper; one is made (not kept: no refreshes ahead, no files) for an
    /// account with stored tokens that is not kept.
    private nonisolated func findKeeper(for account: KeptAccount, in store: any SecureStore) async -> Result<AccountKeeper, AuthError> {
        if let known = keepers.withLock({ $0[account] }) { return .success(known) }
        let items = AccountItems(store: store, server: account.server, account: account.account)
        do throws(AuthError) {
            guard try await items.loadTokens() != nil else {
                return .failure(.notLoggedIn(server: account.server, account: account.account))
            }
        } catch {
            return .failure(error)
        }
        let made = AccountKeeper(account: account, vault: vault, configuration: configuration, tuning: tuning, loops: loops)
        let found: AccountKeeper? = keepers.withLock { keepers in
            if let known = keepers[account] { return known }
            if stopping.withLock({ $0 }) { return nil }
            keepers[account] = made
            return made
        }
        guard let found else { return .failure(AccountKeeper.stopping(account)) }
        return .success(found)
    }

    /// Finds the accounts to keep (the configured ones, or every one with stored tokens,
    /// and those of the token files), starts a keeper for each new one and stops those
    /// logged out since.
    private nonisolated func rescan() async {
        guard let store = vault.current()?.store else { return }
        var wanted = Set(configuration.tokenFiles.map(\.account))
        if let accounts = configuration.accounts {
            wanted.formUnion(accounts)
        } else {
            switch await Result.awaitingBlocking({ () throws(VaultError) in try store.list(server: nil) }) {
            case .success(let items):
                wanted.formUnion(items.filter { $0.kind == .tokens }.map { KeptAccount(server: $0.server, account: $0.account) })
            case .failure(let error):
                configuration.logger.warning("the store cannot be listed (\(error)); keeping the accounts kept so far")
                return
            }
        }
        let (started, stopped): ([AccountKeeper], [AccountKeeper]) = keepers.withLock { keepers in
            // The agent stopping: it keeps nothing more (its keepers are retired).
            if stopping.withLock({ $0 }) { return ([], []) }
            var started: [AccountKeeper] = []
            for account in wanted where keepers[account]?.status().kept != true {
                let keeper =
                    keepers[account]
                    ?? AccountKeeper(account: account, vault: vault, configuration: configuration, tuning: tuning, loops: loops)
                keepers[account] = keeper
                started.append(keeper)
            }
            let stopped = keepers.values.filter { !wanted.contains($0.account) && $0.status().kept }
            for keeper in stopped { keepers[keeper.account] = nil }
            return (started, stopped)
        }
        for keeper in stopped {
            keeper.stopKeeping()
            configuration.logger.notice("\(keeper.account) has no stored tokens any more (logged out); not kept any more")
        }
        for keeper in started {
            keeper.startKeeping()
            configuration.logger.info("keeping \(keeper.account)")
        }
    }

    /// `error` as one line of at most 300 characters, for a `declined` reason or a status
    /// (the errors' own text never holds a secret).
    static func oneLine(_ error: some Error) -> String {
        let text = String(describing: error).map { $0.isNewline ? " " : $0 }
        return String(String(text).prefix(300))
    }
}
