// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// A store that holds keys derived from a passphrase (the encrypted file, a fleet), which
/// a holder can make it drop for good: an agent's lock.
public protocol KeyDroppingStore: SecureStore {
    /// Drops the keys at once; from then on every call fails with ``VaultError/locked(_:)``,
    /// a write already waiting for a lock among them, and nothing is written with the keys.
    func dropKeys()
}

extension VaultError {
    /// Why a store whose keys were dropped (``KeyDroppingStore/dropKeys()``) answers no more.
    public static let keysDropped = VaultError.locked("the vault was locked: this store's keys were dropped")
}
