// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Serializes vault's own writers of one Secret Service item across processes: a ``FileLock``
/// per key (`item-HASH.lock`, no account name in the path) in the user's lock directory
/// (``RefreshLock/perUserDirectory(environment:)``, or the one the program names: the `vault`
/// command's `VAULT_LOCK_DIR`). Why: a keyring's "replace" is not atomic across clients, and
/// concurrent saves of one account each created an item. It only orders vault's processes, so it
/// never decides whether a write happens: where the lock cannot be made or is not had within
/// ``wait``, the write goes ahead unlocked. Docs: docs/secret-service.md, "Concurrent writers of
/// one item".
enum ItemWriteLock {
    /// How long a writer waits for another vault writer of the same item.
    static let wait: Duration = .seconds(10)

    /// The lock file of `key`'s item in `directory`.
    static func path(for key: CredentialKey, in directory: String) -> String {
        var hasher = FNV1a()
        hasher.add(key.server)
        hasher.add("\u{0}")
        hasher.add(key.account)
        hasher.add("\u{0}")
        hasher.add(String(describing: key.kind))
        return "\(directory)/item-\(String(hasher.value, radix: 16)).lock"
    }

    /// What a locked call does, for its notice.
    enum Write: String {
        case saving, removing
    }

    /// Runs `body` holding `key`'s lock in `directory` (nil: no lock), or without it when
    /// the lock cannot be had (see the type's comment); then `notice` says so in one line
    /// (no account or server in it): a lock file or directory refused, or another process
    /// holding the lock for the whole ``wait``. Blocks the calling thread while it waits,
    /// as the store's synchronous calls do.
    static func holding<T>(
        _ key: CredentialKey, in directory: String?, _ write: Write, notice: (@Sendable (String) -> Void)?,
        waitingAtMost wait: Duration = wait, _ body: () throws(VaultError) -> T
    ) throws(VaultError) -> T {
        var lock: FileLock?
        if let directory {
            let path = path(for: key, in: directory)
            do throws(VaultError) {
                try PrivateDirectory.prepare(PrivateDirectory.parent(of: path), what: "the lock directory")
                lock = try FileLock(path: path, timeout: wait, what: "the item's write lock")
            } catch {
                let consequence = write == .saving ? " (a duplicate item may be left until the next save)" : ""
                if case .lockTimeout = error {
                    notice?("another process held the keyring item's write lock \(path) for \(wait): \(write) without it\(consequence)")
                } else {
                    notice?("the keyring item's write lock cannot be used (\(error.description)): \(write) without it\(consequence)")
                }
            }
        }
        defer { lock?.release() }
        return try body()
    }
}
