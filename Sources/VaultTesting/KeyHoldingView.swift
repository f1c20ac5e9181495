// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore
import VaultSync

/// One opening of a shared store, as the encrypted file is opened: a view that holds "the
/// key" until ``dropKeys()``, after which every call fails with ``VaultError/keysDropped``
/// and reaches the store no more. A call under way when the keys are dropped finishes
/// first, and `dropKeys()` waits for it, as the encrypted file's does (its writes and its
/// drop take one mutex): once it returns, nothing more reaches the store. (Checked and
/// then called unlocked, a save that passed the check before a lock reached the store
/// after it on a busy machine, a flake of `AgentLockTests`.) An agent test opens a new
/// view at each unlock, so the agent's lock behaves as with a vault file, over a
/// ``FaultyStore`` or an ``InMemoryStore``.
public final class KeyHoldingView: KeyDroppingStore {
    public let base: any SecureStore
    /// True once the keys are dropped; held for the length of each call.
    private let dropped = Locked(false)

    public init(_ base: any SecureStore) { self.base = base }

    public var backendName: String { base.backendName }
    public var lockDirectory: String? { base.lockDirectory }

    public func dropKeys() { dropped.withLock { $0 = true } }

    /// `body` on the base store while the keys are held; `.keysDropped` after.
    private func holding<T>(_ body: (any SecureStore) throws(VaultError) -> T) throws(VaultError) -> T {
        let base = self.base
        return try dropped.withLock { dropped throws(VaultError) -> T in
            if dropped { throw .keysDropped }
            return try body(base)
        }
    }

    public func load(_ key: CredentialKey) throws(VaultError) -> Credential? {
        try holding { store throws(VaultError) in try store.load(key) }
    }

    public func save(_ credential: Credential) throws(VaultError) {
        try holding { store throws(VaultError) in try store.save(credential) }
    }

    public func remove(_ key: CredentialKey) throws(VaultError) {
        try holding { store throws(VaultError) in try store.remove(key) }
    }

    public func list(server: String?) throws(VaultError) -> [CredentialInfo] {
        try holding { store throws(VaultError) in try store.list(server: server) }
    }
}
