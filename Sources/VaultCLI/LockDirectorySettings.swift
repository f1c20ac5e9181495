// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAuth
import VaultStore

/// `VAULT_LOCK_DIR`: the directory of the refresh locks of accounts kept in a store without
/// a place of its own (a keyring), instead of the user's (`RefreshLock.perUserDirectory`).
/// A store with its own lock (a fleet) or its own directory (the vault file's) keeps them.
package enum LockDirectorySettings {
    /// The refresh lock's placement for accounts kept in `store`: ``RefreshLock/Placement/automatic``,
    /// with `VAULT_LOCK_DIR` as the user's directory. Unset or empty is the default; a path
    /// that is not absolute is `.invalidInput`.
    package static func placement(for store: any SecureStore, _ variables: [String: String]) throws(VaultError) -> RefreshLock.Placement {
        guard let directory = variables["VAULT_LOCK_DIR"], !directory.isEmpty else { return .automatic }
        guard directory.hasPrefix("/") else { throw .invalidInput("VAULT_LOCK_DIR must be an absolute path") }
        guard !(store is any AccountLockingStore), store.lockDirectory == nil else { return .automatic }
        return .directory(directory)
    }

    /// ``placement(for:_:)`` for a store not opened yet, by its backend: only a keyring
    /// (the Secret Service) has no lock place of its own.
    package static func placement(for kind: BackendKind, _ variables: [String: String]) throws(VaultError) -> RefreshLock.Placement {
        guard let directory = variables["VAULT_LOCK_DIR"], !directory.isEmpty else { return .automatic }
        guard directory.hasPrefix("/") else { throw .invalidInput("VAULT_LOCK_DIR must be an absolute path") }
        return kind == .secretService ? .directory(directory) : .automatic
    }
}
