// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Glibc
import Logging
import VaultStore
import VaultSync

/// What every object handler shares: the backing, the connection (for signals), the
/// remembered state, the log. Reading and changing the contents go through
/// ``model(_:)`` and ``modify(_:)``, which try the key cache once when the vault is locked.
package final class ProviderCore: Sendable {
    let backing: any SecretServiceBacking
    /// The bus; nil in the fuzz harness, which emits no signals and registers its callers'
    /// uids in ``state`` beforehand.
    let connection: BusConnection?
    let logger: Logger
    package let state = Locked(ProviderState())

    /// A core with no bus, for the fuzz harness.
    package convenience init(backing: any SecretServiceBacking, logger: Logger) {
        self.init(backing: backing, connection: nil, logger: logger)
    }

    init(backing: any SecretServiceBacking, connection: BusConnection?, logger: Logger) {
        self.backing = backing
        self.connection = connection
        self.logger = logger
    }

    /// Seconds since 1970.
    static func now() -> UInt64 { UInt64(max(0, time(nil))) }

    /// The collections and items now; `IsLocked` when the key is not held and the key cache
    /// does not give it. The items' paths follow these contents (``ItemPaths``): a read that
    /// raced one of the provider's own changes or a newer read reads again, so the paths
    /// never follow older contents than they followed already.
    func model() async throws(ServiceFault) -> ServiceModel {
        for _ in 0..<16 {
            let generation = await quietGeneration()
            let locks = state.withLock { $0.locks }
            let contents: VaultContents
            let revision: ContentsRevision
            do throws(VaultError) {
                (contents, revision) = try await contentsUnlocking()
            } catch {
                throw fault(error)
            }
            let ids = [ServiceCollection.loginID] + contents.collections.keys.filter { $0 != ServiceCollection.loginID }.sorted()
            // Indexed outside the lock; the same snapshot (revision) reuses its index and paths.
            let seen = state.withLock { $0.followed }
            let reused = seen.map { $0.generation == generation && $0.revision == revision } ?? false
            let index = reused ? seen?.index ?? AttributeIndex(contents) : AttributeIndex(contents)
            let paths: ItemPaths? = state.withLock { (state) -> ItemPaths? in
                guard !state.changing, state.pathsGeneration == generation else { return nil }
                state.knownCollections = ids
                if !reused || state.followed?.generation != generation || state.followed?.revision != revision {
                    if state.paths.update(for: contents).changed { state.pathsGeneration += 1 }
                    // Not kept when the vault locked since this read began: a locked vault's index is not kept.
                    state.followed = state.locks == locks ? (revision, index, state.pathsGeneration) : nil
                }
                return state.paths
            }
            if let paths { return ServiceModel(contents: contents, paths: paths, index: index) }
        }
        throw .failed("the vault kept changing while it was read; try again")
    }

    /// One read-modify-write: `change` returns its result and whether it changed anything;
    /// a ``ServiceFault`` it throws leaves the contents as they were. `change` sees the
    /// contents as they are under the file's lock and the items' paths updated to them, and
    /// may move a path (``ItemPaths/move(_:to:)``); the paths follow its result afterwards.
    /// The provider's changes run one at a time, and no read updates the paths meanwhile.
    func modify<T: Sendable>(
        _ change: @escaping @Sendable (inout VaultContents, inout ItemPaths) throws(ServiceFault) -> (T, changed: Bool)
    ) async throws(ServiceFault) -> T {
        await beginChange()
        defer { endChange() }
        let outcome = OutcomeBox<T>()
        let attempt: @Sendable () async throws(VaultError) -> Void = { [backing, self] () async throws(VaultError) in
            try await backing.modify { (contents) throws(VaultError) -> Bool in
                do throws(ServiceFault) {
                    let (result, changed) = try self.state.withLock { (state) throws(ServiceFault) in
                        _ = state.paths.update(for: contents)
                        let outcome = try change(&contents, &state.paths)
                        _ = state.paths.update(for: contents)
                        return outcome
                    }
                    outcome.value.withLock { $0 = .success(result) }
                    return changed
                } catch {
                    outcome.value.withLock { $0 = .failure(error) }
                    return false
                }
            }
        }
        do throws(VaultError) {
            do throws(VaultError) {
                try await attempt()
            } catch  where error.withoutRemedy.isLocked {
                guard await backing.unlock() else { throw error }
                try await attempt()
            }
        } catch {
            throw fault(error)
        }
        guard let result = outcome.value.withLock({ $0 }) else { throw .failed("the vault was not changed") }
        return try result.get()
    }

    /// Waits until none of the provider's own changes is under way; returns the paths'
    /// generation then.
    private func quietGeneration() async -> UInt64 {
        while true {
            if let generation = state.withLock({ $0.changing ? nil : $0.pathsGeneration }) { return generation }
            await waitForChangeEnd()
        }
    }

    /// Waits for the change under way to end, then starts one.
    private func beginChange() async {
        while true {
            let started = state.withLock { state in
                guard !state.changing else { return false }
                state.changing = true
                state.pathsGeneration += 1
                state.followed = nil
                return true
            }
            if started { return }
            await waitForChangeEnd()
        }
    }

    private func endChange() {
        let waiters = state.withLock { state in
            state.changing = false
            state.pathsGeneration += 1
            defer { state.changeWaiters = [] }
            return state.changeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when no change is under way (at once when none is).
    private func waitForChangeEnd() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waits = state.withLock { state in
                guard state.changing else { return false }
                state.changeWaiters.append(continuation)
                return true
            }
            if !waits { continuation.resume() }
        }
    }

    private func contentsUnlocking() async throws(VaultError) -> (contents: VaultContents, revision: ContentsRevision) {
        do throws(VaultError) {
            return try await backing.revisedContents()
        } catch  where error.withoutRemedy.isLocked {
            guard await backing.unlock() else { throw error }
            return try await backing.revisedContents()
        }
    }

    /// The fault a backing error becomes (no secret is ever in a ``VaultError``).
    private func fault(_ error: VaultError) -> ServiceFault {
        if error.withoutRemedy.isLocked {
            let now = Self.now()
            let due = state.withLock { state in
                guard now >= state.lastLockedNotice + 60 else { return false }
                state.lastLockedNotice = now
                return true
            }
            if due { logger.warning("the vault is locked; run `vault unlock` so Secret Service clients can read it") }
            return .isLocked
        }
        logger.error("the vault could not be read or written: \(error)")
        return .failed("the vault could not be read or written: \(error)")
    }

    /// Emits a signal.
    func emit(_ path: String, _ interface: String, _ signal: String, _ arguments: [DBusValue]) {
        connection?.emit(path: path, interface: interface, signal: signal, arguments)
    }

    /// The collection id an alias names.
    package func alias(_ name: String) -> String? { state.withLock { $0.aliases[name] } }
}

/// Where a ``ProviderCore/modify(_:)`` change leaves its result.
final class OutcomeBox<T: Sendable>: Sendable {
    let value = Locked<Result<T, ServiceFault>?>(nil)
}

extension VaultError {
    /// True for ``VaultError/locked(_:)``.
    var isLocked: Bool { if case .locked = self { true } else { false } }
}
