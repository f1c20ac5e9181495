// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// What the first `save` says once it has created the vault file: that a new file was made,
/// and where (a mistyped `--file` or `VAULT_FILE` shows here, not weeks later). Said after
/// the save, not before: a passphrase refused, mistyped three times or interrupted creates
/// no file, and nothing must say it did (issue 38 §5.7).
package enum NewVaultNotice {
    /// When `store` is the encrypted file and there is no file yet, checks the file's place
    /// (its directory and lock file, throwing the refusal a write would) and returns the
    /// file, for ``announce(created:)`` after the save. Nil otherwise.
    package static func prepare(_ store: any SecureStore) throws(VaultError) -> EncryptedFileStore? {
        guard let file = store as? EncryptedFileStore, !file.fileExists else { return nil }
        try file.preparePlace()
        return file
    }

    /// Says on stderr `created a new vault file at PATH` when `file` (from ``prepare(_:)``)
    /// is there now.
    package static func announce(created file: EncryptedFileStore?) {
        guard let file, file.fileExists else { return }
        Terminal.note("created a new vault file at \(file.path)")
    }
}
