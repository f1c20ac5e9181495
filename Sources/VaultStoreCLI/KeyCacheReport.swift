// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// The `--verbose` line about the file backend's key cache.
package enum KeyCacheReport {
    /// Whether the key cache is on, for how long keys are kept, or why it cannot be used here.
    package static func note(_ store: EncryptedFileStore) {
        guard let policy = store.keyCache else {
            Terminal.note("key cache off (VAULT_KEY_CACHE_TTL=0 or --no-key-cache)")
            return
        }
        if let why = store.keyCacheUnavailability {
            Terminal.note("key cache unavailable: \(why); the key is derived from the passphrase every time")
        } else {
            Terminal.note("key cache: the kernel's user keyring, keys kept \(policy.lifetime) s")
        }
    }
}
