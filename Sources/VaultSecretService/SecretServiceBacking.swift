// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// What the Secret Service provider serves: a vault's contents, and whether its key is
/// held. `vault agent --secret-service` backs it with the encrypted file it holds (the
/// vault's key follows `vault lock` and `vault unlock`); tests back it with memory.
///
/// Calls may block briefly (a file read, a write under the file lock); the provider makes
/// them off the D-Bus dispatch thread, so one slow call holds up no other client.
public protocol SecretServiceBacking: Sendable {
    /// The contents now. Throws ``VaultError/locked(_:)`` while the key is not held.
    func contents() async throws(VaultError) -> VaultContents

    /// ``contents()`` with its snapshot's revision (``ContentsRevision``): the provider
    /// reuses what it derived from contents of the same revision (the items' attribute
    /// index) instead of deriving it again. By default every read is a new revision.
    func revisedContents() async throws(VaultError) -> (contents: VaultContents, revision: ContentsRevision)

    /// One read-modify-write of the contents (``VaultContentsStore/modifyContents(_:)``):
    /// `change` returns whether it changed anything. Throws ``VaultError/locked(_:)`` while
    /// the key is not held.
    func modify(_ change: @escaping @Sendable (inout VaultContents) throws(VaultError) -> Bool) async throws(VaultError)

    /// Whether the key is not held now (collections report `Locked`).
    var isLocked: Bool { get }

    /// Tries to take the key without a person (the key cache, as `vault unlock` left it);
    /// true when the vault is unlocked afterwards.
    func unlock() async -> Bool

    /// Drops the key (what `vault lock` does).
    func lock() async

    /// Calls `handler` after every change of ``isLocked`` (a `vault lock`, a key cache that
    /// ran out, an unlock), so the provider can tell its clients.
    func onLockChange(_ handler: @escaping @Sendable () -> Void)
}

extension SecretServiceBacking {
    public func revisedContents() async throws(VaultError) -> (contents: VaultContents, revision: ContentsRevision) {
        (try await contents(), ContentsRevision.next())
    }
}
