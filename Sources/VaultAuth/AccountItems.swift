// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

/// The items one account keeps in a `SecureStore`: its password (the item `vault save`
/// and `secret-tool` see), its tokens and its login settings (kinds `.tokens` and
/// `.settings`, which a password lookup never matches).
public struct AccountItems: Sendable {
    /// The store that holds the account's items. Its blocking calls run on a thread of their own, never on
    /// the Swift concurrency pool; its `VaultError`s surface as ``AuthError/store(_:)``.
    public let store: any SecureStore
    /// The server as stored (see `ServerName.normalized`).
    public let server: String
    /// The account on ``server`` (a user name, login or client id), used as given.
    public let account: String

    /// The items of `account` on `server` in `store`. `server` is used as given: normalise it first with
    /// ``ServerName/normalized(_:)`` (``AuthSession`` does).
    public init(store: any SecureStore, server: String, account: String) {
        self.store = store
        self.server = server
        self.account = account
    }

    /// The key of the password item (kind `.password`): the item `vault save` and `secret-tool` see.
    public var passwordKey: CredentialKey { key(.password) }
    /// The key of the item (kind `.tokens`) whose secret is the account's ``TokenSet`` as JSON.
    public var tokensKey: CredentialKey { key(.tokens) }
    /// The key of the item (kind `.settings`) whose secret is the account's ``LoginSettings`` as JSON.
    public var settingsKey: CredentialKey { key(.settings) }

    /// The stored tokens, or nil (a damaged token item counts as none).
    public func loadTokens() async throws(AuthError) -> TokenSet? {
        try await load(.tokens).flatMap { TokenSet(encoded: $0.secret) }
    }

    /// Stores `tokens` as the ``tokensKey`` item, replacing the previous ones.
    public func saveTokens(_ tokens: TokenSet) async throws(AuthError) {
        try await save(Credential(key: tokensKey, secret: tokens.encoded()))
    }

    /// Deletes the token item; succeeds when there is none.
    public func removeTokens() async throws(AuthError) { try await remove(.tokens) }

    /// The stored password, or nil.
    public func loadPassword() async throws(AuthError) -> Secret? { try await load(.password)?.secret }

    /// Stores `password` as the ``passwordKey`` item; a nil or empty `label` becomes the store's default
    /// (`vault: ACCOUNT@SERVER`).
    public func savePassword(_ password: Secret, label: String? = nil) async throws(AuthError) {
        try await save(Credential(key: passwordKey, secret: password, label: label))
    }

    /// Deletes the password item; succeeds when there is none.
    public func removePassword() async throws(AuthError) { try await remove(.password) }

    /// The stored login settings, or nil (none, or an item that cannot be read as settings).
    public func loadSettings() async throws(AuthError) -> LoginSettings? {
        try await loadSettingsData().flatMap(LoginSettings.decode)
    }

    /// The stored secret of kind `.settings` (a JSON document), or nil.
    public func loadSettingsData() async throws(AuthError) -> [UInt8]? { try await load(.settings)?.secret.bytes }

    /// Stores `data` (a JSON document: encoded ``LoginSettings``) as the ``settingsKey`` item, replacing it whole.
    public func saveSettingsData(_ data: [UInt8]) async throws(AuthError) {
        try await save(Credential(key: settingsKey, secret: Secret(bytes: data)))
    }

    /// Deletes the settings item, and with it any rejection ``SilentReauthenticator`` remembered; succeeds
    /// when there is none.
    public func removeSettings() async throws(AuthError) { try await remove(.settings) }

    // MARK: - The three store operations, off the concurrency pool

    private func key(_ kind: ItemKind) -> CredentialKey { CredentialKey(server: server, account: account, kind: kind) }

    private func load(_ kind: ItemKind) async throws(AuthError) -> Credential? {
        let store = self.store
        let key = key(kind)
        return try await offload { () throws(VaultError) in try store.load(key) }
    }

    private func save(_ credential: Credential) async throws(AuthError) {
        let store = self.store
        try await offload { () throws(VaultError) in try store.save(credential) }
    }

    private func remove(_ kind: ItemKind) async throws(AuthError) {
        let store = self.store
        let key = key(kind)
        try await offload { () throws(VaultError) in try store.remove(key) }
    }

    /// Runs a store call on a thread of its own (``Blocking``); its error as an ``AuthError``.
    private func offload<T: Sendable>(_ body: @escaping @Sendable () throws(VaultError) -> T) async throws(AuthError) -> T {
        do throws(VaultError) {
            return try await Blocking.run(body)
        } catch {
            throw AuthError(error)
        }
    }
}
