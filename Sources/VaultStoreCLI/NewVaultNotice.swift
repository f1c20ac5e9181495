// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// What the first `save` says before it creates the vault file: that a new file is made,
/// and where (a mistyped `--file` or `VAULT_FILE` shows here, not weeks later).
package enum NewVaultNotice {
    /// When `store` is the encrypted file and there is no file yet, says on stderr
    /// `creating a new vault file at PATH`. Nothing otherwise.
    package static func announce(_ store: any SecureStore) {
        guard let file = store as? EncryptedFileStore, !file.fileExists else { return }
        Terminal.note("creating a new vault file at \(file.path)")
    }
}
