// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The KeyChain-style contract every backend keeps.
///
/// - An item is keyed by `(server, account)` and holds a secret and a label.
/// - `save` adds the item or replaces the one with the same key.
/// - `load` of a missing item returns nil; it is not an error.
/// - `remove` of a missing item succeeds.
/// - `list` returns metadata only, never secrets, sorted by server then account.
/// - Every failure is a `VaultError`.
///
/// Calls block the calling thread (a Secret Service round trip, a key derivation, a
/// file write); call them off latency-sensitive executors.
public protocol SecureStore: Sendable {
    /// A short name for messages: "secret-service", "file", "memory".
    var backendName: String { get }

    /// Adds `credential`, or replaces the item with the same key.
    func save(_ credential: Credential) throws(VaultError)

    /// The item stored under `key`, or nil when there is none.
    func load(_ key: CredentialKey) throws(VaultError) -> Credential?

    /// Removes the item stored under `key`; succeeds when there is none.
    func remove(_ key: CredentialKey) throws(VaultError)

    /// The items, optionally only those of `server`, without their secrets.
    func list(server: String?) throws(VaultError) -> [CredentialInfo]

    /// A directory that every process using this same store can reach, for their
    /// cross-process locks (the vault file's directory), or nil when the store has no
    /// place of its own (a keyring): callers then use a per-user directory.
    var lockDirectory: String? { get }
}

extension SecureStore {
    /// Default: nil, so callers lock in a per-user directory; see ``SecureStore/lockDirectory``.
    public var lockDirectory: String? { nil }

    /// Loads the item of `account` on `server`.
    public func load(server: String, account: String) throws(VaultError) -> Credential? {
        try load(CredentialKey(server: server, account: account))
    }

    /// Removes the item of `account` on `server`.
    public func remove(server: String, account: String) throws(VaultError) {
        try remove(CredentialKey(server: server, account: account))
    }

    /// All items, without their secrets.
    public func list() throws(VaultError) -> [CredentialInfo] { try list(server: nil) }
}
