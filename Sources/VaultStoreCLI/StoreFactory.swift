// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// Opens the store a `BackendDecision` names, with the typed configuration the command
/// line and the `VAULT_*` variables make (``StoreConfiguration/openingContext(for:addingCachedKeys:)``).
package enum StoreFactory {
    /// Opens the store; with `addingCachedKeys` false it uses a key kept in the key cache
    /// but adds none (`vault exec`).
    package static func open(
        _ decision: BackendDecision, options: some StoreConfigurable, addingCachedKeys: Bool = true
    ) throws(VaultError) -> any SecureStore {
        try decision.open(options.configuration.openingContext(for: decision.kind, addingCachedKeys: addingCachedKeys))
    }

    /// The file store, whatever backend is selected (`vault passwd`).
    package static func fileStore(options: some StoreConfigurable) throws(VaultError) -> EncryptedFileStore {
        EncryptedFileBackend.store(try options.configuration.openingContext(for: .file))
    }
}
