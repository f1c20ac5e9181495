// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultSync

/// A store that keeps items in memory only, for other tools' tests and for caches.
/// It keeps the same contract as the persistent backends.
public final class InMemoryStore: SecureStore {
    private let items = Locked<[CredentialKey: Credential]>([:])

    /// A store holding `credentials`; a later one replaces an earlier one with the same key. Their keys are
    /// not validated.
    public init(_ credentials: [Credential] = []) {
        items.withLock { items in
            for credential in credentials { items[credential.key] = credential }
        }
    }

    /// `"memory"`; see ``SecureStore/backendName``.
    public var backendName: String { "memory" }

    /// Validates the key (``VaultError/invalidInput(_:)``), then stores the item under a mutex; never blocks
    /// for long. See ``SecureStore/save(_:)``.
    public func save(_ credential: Credential) throws(VaultError) {
        let key = try credential.key.validated()
        items.withLock { $0[key] = credential }
    }

    /// Never throws; see ``SecureStore/load(_:)``.
    public func load(_ key: CredentialKey) throws(VaultError) -> Credential? {
        items.withLock { $0[key] }
    }

    /// Never throws; see ``SecureStore/remove(_:)``.
    public func remove(_ key: CredentialKey) throws(VaultError) {
        _ = items.withLock { $0.removeValue(forKey: key) }
    }

    /// Never throws; sorted by key. See ``SecureStore/list(server:)``.
    public func list(server: String?) throws(VaultError) -> [CredentialInfo] {
        items.withLock { items in
            items.values.filter { server == nil || $0.server == server }.map(\.info).sorted()
        }
    }
}
