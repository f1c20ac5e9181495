// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Glibc
import Logging
import Synchronization
import VaultStore

/// What every object handler shares: the backing, the connection (for signals), the
/// remembered state, the log. Reading and changing the contents go through
/// ``model(_:)`` and ``modify(_:)``, which try the key cache once when the vault is locked.
package final class ProviderCore: Sendable {
    let backing: any SecretServiceBacking
    /// The bus; nil in the fuzz harness, which emits no signals and registers its callers'
    /// uids in ``state`` beforehand.
    let connection: BusConnection?
    let logger: Logger
    package let state = Mutex(ProviderState())

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
    /// does not give it.
    func model() async throws(ServiceFault) -> ServiceModel {
        do throws(VaultError) {
            let contents = try await contentsUnlocking()
            let ids = ServiceModel(contents: contents).collectionIDs
            state.withLock { $0.knownCollections = ids }
            return ServiceModel(contents: contents)
        } catch {
            throw fault(error)
        }
    }

    /// One read-modify-write: `change` returns its result and whether it changed anything;
    /// a ``ServiceFault`` it throws leaves the contents as they were.
    func modify<T: Sendable>(
        _ change: @escaping @Sendable (inout VaultContents) throws(ServiceFault) -> (T, changed: Bool)
    ) async throws(ServiceFault) -> T {
        let outcome = OutcomeBox<T>()
        let attempt: @Sendable () async throws(VaultError) -> Void = { [backing] () async throws(VaultError) in
            try await backing.modify { (contents) throws(VaultError) -> Bool in
                do throws(ServiceFault) {
                    let (result, changed) = try change(&contents)
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

    private func contentsUnlocking() async throws(VaultError) -> VaultContents {
        do throws(VaultError) {
            return try await backing.contents()
        } catch  where error.withoutRemedy.isLocked {
            guard await backing.unlock() else { throw error }
            return try await backing.contents()
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
    let value = Mutex<Result<T, ServiceFault>?>(nil)
}

extension VaultError {
    /// True for ``VaultError/locked(_:)``.
    var isLocked: Bool { if case .locked = self { true } else { false } }
}
