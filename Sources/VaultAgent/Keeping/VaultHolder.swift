// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Logging
import VaultStore
import VaultSync

/// The store the agent serves, and with it the keys it holds (an encrypted file's key lives
/// in its store object): held while the vault is unlocked, dropped at once by ``lock()``.
/// After a lock only ``AgentConfiguration/openStore`` with `afterLock` (the key cache
/// alone) opens it again, and only when that store can be read.
final class VaultHolder: Sendable {
    private struct State {
        var store: (any SecureStore)?
        /// Changes at every lock and unlock: whatever was made from an older store is dropped.
        var generation = 0
        var reopening: Task<Bool, Never>?
    }

    private let state = Locked(State())
    /// Called after every lock and unlock (``observe(_:)``).
    private let observers = Locked<[@Sendable () -> Void]>([])
    private let openStore: @Sendable (_ afterLock: Bool) throws(VaultError) -> any SecureStore
    private let logger: Logger

    init(openStore: @escaping @Sendable (_ afterLock: Bool) throws(VaultError) -> any SecureStore, logger: Logger) {
        self.openStore = openStore
        self.logger = logger
    }

    /// Calls `handler` after every lock and every unlock, on the thread that made it.
    func observe(_ handler: @escaping @Sendable () -> Void) {
        observers.withLock { $0.append(handler) }
    }

    private func changed() {
        for handler in observers.withLock({ $0 }) { handler() }
    }

    /// The store and its generation, or nil while the vault is locked.
    func current() -> (store: any SecureStore, generation: Int)? {
        state.withLock { state in state.store.map { ($0, state.generation) } }
    }

    /// True after ``lock()`` (or a failed first open) until a reopening succeeds.
    var isLocked: Bool { state.withLock { $0.store == nil } }

    /// The generation now.
    var generation: Int { state.withLock { $0.generation } }

    /// Opens the store the agent starts with (`afterLock` false: the passphrase source the
    /// agent was given may be used); stays locked, and says so, when it cannot.
    func openInitially() async {
        let open = openStore
        do throws(VaultError) {
            let store = try await Blocking.run { () throws(VaultError) in try open(false) }
            state.withLock { state in
                state.store = store
                state.generation += 1
            }
            changed()
        } catch {
            logger.error("the store cannot be opened (\(error)); serving nothing that needs it until it can")
        }
    }

    /// Drops the store, and with it every key it holds. True when it was held. The store
    /// drops its keys at once (``KeyDroppingStore``): whoever still holds it (a token source
    /// being handed over, a save waiting for the file's lock) can write nothing with them.
    @discardableResult
    func lock() -> Bool {
        let dropped = state.withLock { state in
            let dropped = state.store
            state.store = nil
            state.generation += 1
            return dropped
        }
        guard let dropped else { return false }
        (dropped as? any KeyDroppingStore)?.dropKeys()
        changed()
        return true
    }

    /// The store, reopened from the key cache when the vault is locked (one attempt at a
    /// time, shared by every caller); nil when it stays locked. A caller that joined an
    /// attempt already under way, which failed, makes one of its own: that attempt may have
    /// read the key cache before the caller's `vault unlock` filled it (a busy machine
    /// declined a token as locked right after the unlock).
    func availableStore() async -> (store: any SecureStore, generation: Int)? {
        for _ in 0..<2 {
            if let current = current() { return current }
            let (task, joined): (Task<Bool, Never>, Bool) = state.withLock { state in
                if let running = state.reopening { return (running, true) }
                let generation = state.generation
                let task = Task { await self.reopen(ifStill: generation) }
                state.reopening = task
                return (task, false)
            }
            _ = await task.value
            if !joined { break }
        }
        return current()
    }

    /// Opens the store with the key cache alone and reads its list (which needs the key);
    /// installs it unless a lock came meanwhile.
    private func reopen(ifStill generation: Int) async -> Bool {
        let open = openStore
        let opened: Result<any SecureStore, VaultError> = await Result.awaitingBlocking {
            () throws(VaultError) -> any SecureStore in
            let store = try open(true)
            _ = try store.list(server: nil)
            return store
        }
        let installed = state.withLock { state in
            state.reopening = nil
            guard case .success(let store) = opened, state.generation == generation, state.store == nil else { return false }
            state.store = store
            state.generation += 1
            return true
        }
        if installed { changed() }
        return installed
    }
}

extension Result where Failure == VaultError {
    /// `body`'s result, run on a thread of its own (``Blocking``).
    static func awaitingBlocking(_ body: @escaping @Sendable () throws(VaultError) -> Success) async -> Result<Success, VaultError>
    where Success: Sendable {
        do throws(VaultError) {
            return .success(try await Blocking.run(body))
        } catch {
            return .failure(error)
        }
    }
}
