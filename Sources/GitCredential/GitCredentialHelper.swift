// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import FoundationEssentials
import VaultStore

/// git's three helper operations on a secure store.
///
/// - `get`: the item of the user git named, or, when git named none, the one item kept
///   for that URL when there is exactly one. An expired password is not returned.
/// - `store`: saves the password (and its expiry and OAuth refresh token) under the URL
///   and user; a message without user or password, or without protocol and host, is
///   ignored, as `git-credential-libsecret` ignores it; a host no URL can have (a `%`, a
///   `/`, a bad port) is refused.
/// - `erase` (git's answer to a rejected password): removes only the item of exactly that
///   URL and user, and, when git sends the rejected password (it always does), only while
///   the item still holds it (a password saved since is not git's rejected one). Without a user, only when exactly one item is kept
///   for the URL. Never a neighbour: another user, port, path or protocol.
package struct GitCredentialHelper {
    package let store: any SecureStore
    package var now: () -> Date = { Date() }

    package init(store: any SecureStore) { self.store = store }

    /// The reply to `get` (nil: nothing to say, git asks its next helper).
    package func get(_ message: GitCredentialMessage) throws(VaultError) -> GitCredentialMessage? {
        guard let item = GitCredentialItem(message), let found = try stored(item, user: message.username) else { return nil }
        return GitCredentialItem.reply(account: found.account, secret: found.secret, now: now())
    }

    /// Saves what git approved.
    package func store(_ message: GitCredentialMessage) throws(VaultError) {
        guard let user = message.username, !user.isEmpty, let password = message.password, !password.isEmpty,
            message.protocol != nil || message.host != nil
        else { return }
        guard let item = GitCredentialItem(message) else {
            throw .invalidInput("not stored: git sent a protocol and host that do not make a URL vault keeps items for")
        }
        try store.save(Credential(key: item.key(account: user).validated(), secret: GitCredentialItem.secret(for: message), label: item.label))
    }

    /// Removes what git rejected, when it is still what git rejected.
    package func erase(_ message: GitCredentialMessage) throws(VaultError) {
        guard let item = GitCredentialItem(message), let found = try stored(item, user: message.username) else { return }
        if let sent = message.password {
            guard let kept = GitCredentialItem.reply(account: found.account, secret: found.secret, now: .distantPast),
                kept.password == sent
            else { return }
        }
        try store.remove(found.key)
    }

    /// The item of `user` at `item`'s URL; without a user, the only password item kept there.
    private func stored(_ item: GitCredentialItem, user: String?) throws(VaultError) -> Credential? {
        if let user, !user.isEmpty { return try store.load(item.key(account: user).validated()) }
        let candidates = try store.list(server: item.server).filter { $0.kind == .password }
        guard candidates.count == 1 else { return nil }
        return try store.load(candidates[0].key)
    }
}
