// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// What an item holds. Password items are what users and other tools (`secret-tool`,
/// Seahorse) see; the other kinds are vault's own bookkeeping for an account and are
/// stored so that a password lookup never matches them.
public enum ItemKind: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// A password or other user secret (the network-password item of a keyring).
    case password
    /// The token set VaultAuth keeps for an account (access and refresh tokens).
    case tokens
    /// VaultAuth's login settings for an account (provider, token URL, client secret).
    case settings

    /// Declaration order: ``password``, then ``tokens``, then ``settings``.
    public static func < (lhs: ItemKind, rhs: ItemKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// Where an item lives: the pair `(server, account)` that keys every item in a store,
/// like the server and account of an Apple internet-password item, plus the item's
/// kind (password items unless said otherwise).
public struct CredentialKey: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The server (a host name or a URL, as the caller names it).
    public let server: String
    /// The account (user name, login or client id) on that server.
    public let account: String
    /// What the item holds.
    public let kind: ItemKind

    /// Creates a key. Use `validated()` before handing a key from user input to a store.
    public init(server: String, account: String, kind: ItemKind = .password) {
        self.server = server
        self.account = account
        self.kind = kind
    }

    /// Throws `VaultError.invalidInput` when the server or the account is empty, too long
    /// or contains control characters.
    public func validated() throws(VaultError) -> CredentialKey {
        try Self.check(server, field: "server")
        try Self.check(account, field: "account")
        return self
    }

    private static func check(_ value: String, field: String) throws(VaultError) {
        guard !value.isEmpty else { throw VaultError.invalidInput("the \(field) must not be empty") }
        guard value.utf8.count <= 4096 else {
            throw VaultError.invalidInput("the \(field) is longer than 4096 bytes")
        }
        guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw VaultError.invalidInput("the \(field) contains a control character")
        }
    }

    /// By server, then account, then kind: the order of ``SecureStore/list(server:)``.
    public static func < (lhs: CredentialKey, rhs: CredentialKey) -> Bool {
        (lhs.server, lhs.account, lhs.kind) < (rhs.server, rhs.account, rhs.kind)
    }

    /// `ACCOUNT@SERVER`, followed by ` (KIND)` for kinds other than ``ItemKind/password``.
    public var description: String { kind == .password ? "\(account)@\(server)" : "\(account)@\(server) (\(kind.rawValue))" }
}

/// An item of a secure store: a secret with its key and a human-readable label.
public struct Credential: Sendable, Hashable, CustomStringConvertible {
    /// Where the item lives: server, account and kind.
    public var key: CredentialKey
    /// The secret itself; it prints redacted (see ``Secret``).
    public var secret: Secret
    /// The label a keyring shows for the item; the initialisers never leave it empty
    /// (they fall back to ``defaultLabel(for:)``).
    public var label: String

    /// Creates a credential; an empty or missing label becomes `vault: ACCOUNT@SERVER`.
    public init(server: String, account: String, secret: Secret, label: String? = nil) {
        self.key = CredentialKey(server: server, account: account)
        self.secret = secret
        self.label = Credential.label(label, for: key)
    }

    /// Creates a credential under `key`, of any ``ItemKind``; an empty or missing label becomes
    /// ``defaultLabel(for:)``.
    public init(key: CredentialKey, secret: Secret, label: String? = nil) {
        self.key = key
        self.secret = secret
        self.label = Credential.label(label, for: key)
    }

    /// The server of ``key`` (``CredentialKey/server``).
    public var server: String { key.server }
    /// The account of ``key`` (``CredentialKey/account``).
    public var account: String { key.account }

    /// The metadata of this item, without the secret.
    public var info: CredentialInfo { CredentialInfo(key: key, label: label) }

    /// The label used when none is given.
    public static func defaultLabel(for key: CredentialKey) -> String {
        key.kind == .password ? "vault: \(key.account)@\(key.server)" : "vault \(key.kind.rawValue): \(key.account)@\(key.server)"
    }

    private static func label(_ label: String?, for key: CredentialKey) -> String {
        guard let label, !label.isEmpty else { return defaultLabel(for: key) }
        return label
    }

    /// The key and label with the secret redacted (`<redacted N bytes>`): safe to log.
    public var description: String { "Credential(\(key), label: \(label), secret: \(secret))" }
}

/// What `list` returns: everything about an item but its secret.
public struct CredentialInfo: Sendable, Hashable, Codable, Comparable {
    /// The server of the item's key (``CredentialKey/server``).
    public var server: String
    /// The account of the item's key (``CredentialKey/account``).
    public var account: String
    /// The item's label as the store holds it (for the Secret Service, whatever the keyring shows).
    public var label: String
    /// What the item holds; omitted from the JSON form when it is ``ItemKind/password``.
    public var kind: ItemKind

    /// The metadata of the item under `key` labelled `label`.
    public init(key: CredentialKey, label: String) {
        self.server = key.server
        self.account = key.account
        self.kind = key.kind
        self.label = label
    }

    /// The item's key, rebuilt from ``server``, ``account`` and ``kind``.
    public var key: CredentialKey { CredentialKey(server: server, account: account, kind: kind) }

    private enum CodingKeys: String, CodingKey { case server, account, label, kind }

    /// Encodes server, account and label, and the kind only when it is not `password`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(server, forKey: .server)
        try container.encode(account, forKey: .account)
        try container.encode(label, forKey: .label)
        if kind != .password { try container.encode(kind, forKey: .kind) }
    }

    /// Decodes server, account and label; a missing `kind` means ``ItemKind/password``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        server = try container.decode(String.self, forKey: .server)
        account = try container.decode(String.self, forKey: .account)
        label = try container.decode(String.self, forKey: .label)
        kind = try container.decodeIfPresent(ItemKind.self, forKey: .kind) ?? .password
    }

    /// By ``key``: server, then account, then kind (the order of ``SecureStore/list(server:)``).
    public static func < (lhs: CredentialInfo, rhs: CredentialInfo) -> Bool { lhs.key < rhs.key }
}
