// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// What the first `save` says before it creates the vault file: that a new file is made,
/// and where (a mistyped `--file` or `VAULT_FILE` shows here, not weeks later).
package enum NewVaultNotice {
    /// When `store` is the encrypted file and there is no file yet, checks the file's place
    /// (its directory and lock file, throwing the refusal a write would) and then says on
    /// stderr `creating a new vault file at PATH`. Nothing otherwise.
    package static func announce(_ store: any SecureStore) throws(VaultError) {
        guard let file = store as? EncryptedFileStore, !file.fileExists else { return }
        try file.preparePlace()
        Terminal.note("creating a new vault file at \(file.path)")
    }
}
