// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore
import VaultSync

/// One opening of a shared store, as the encrypted file is opened: a view that holds "the
/// key" until ``dropKeys()``, after which every call fails with ``VaultError/keysDropped``
/// and reaches the store no more. An agent test opens a new view at each unlock, so the
/// agent's lock behaves as with a vault file, over a ``FaultyStore`` or an ``InMemoryStore``.
public final class KeyHoldingView: KeyDroppingStore {
    public let base: any SecureStore
    private let dropped = Locked(false)

    public init(_ base: any SecureStore) { self.base = base }

    public var backendName: String { base.backendName }
    public var lockDirectory: String? { base.lockDirectory }

    public func dropKeys() { dropped.withLock { $0 = true } }

    private func check() throws(VaultError) {
        if dropped.withLock({ $0 }) { throw .keysDropped }
    }

    public func load(_ key: CredentialKey) throws(VaultError) -> Credential? {
        try check()
        return try base.load(key)
    }

    public func save(_ credential: Credential) throws(VaultError) {
        try check()
        try base.save(credential)
    }

    public func remove(_ key: CredentialKey) throws(VaultError) {
        try check()
        try base.remove(key)
    }

    public func list(server: String?) throws(VaultError) -> [CredentialInfo] {
        try check()
        return try base.list(server: server)
    }
}
