// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The attribute sets that make a keyring item vault's item for a key: the neighbours rule.
/// The keyring is shared with git, mail clients and browsers, so an item is the item of key
/// K only when its attributes, ignoring `xdg:schema` and KeePassXC's own, are **exactly**
/// one of K's shapes, and its schema is one vault's and git's items have; any other item is
/// never read, changed or removed. Ranked best first: `load` reads the best, newest item;
/// `save` updates the best `.current` or `.plainPair` item and deletes the key's others.
/// The shapes, schemas and ranks: docs/secret-service.md, "Other applications' items are
/// never touched".
enum ItemShape: Int, Comparable, Sendable {
    case current, plainPair, legacy

    static func < (lhs: ItemShape, rhs: ItemShape) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Attributes that never make an item someone else's: the schema name, those KeePassXC
    /// adds to every item it exposes, and the content type it records for a secret that is
    /// not `text/plain` (a binary secret).
    static let ignoredAttributes: Set<String> = [
        "xdg:schema", "Title", "UserName", "URL", "Notes", "Path", "Uuid", "FDO_SECRETS_CONTENT_TYPE",
    ]

    /// The schemas a password item of vault's may carry (or none at all): the network-password
    /// schema (vault's, and what git's libsecret helper writes in Debian 12), `secret-tool`'s generic
    /// one, and `org.git.Password`, which later git's libsecret helper writes.
    static let passwordSchemas: Set<String> = [LibSecretSchema.name, "org.freedesktop.Secret.Generic", "org.git.Password"]

    /// `attributes` without the ignored ones.
    static func significant(_ attributes: [String: String]) -> [String: String] {
        attributes.filter { !ignoredAttributes.contains($0.key) }
    }

    /// The attributes `save` writes for a new item of `key` (its `.current` shape).
    static func storeAttributes(for key: CredentialKey) -> [String: String] {
        typealias Name = LibSecretSchema.Attribute
        guard key.kind == .password else {
            return [Name.vaultKind: key.kind.rawValue, Name.vaultServer: key.server, Name.vaultAccount: key.account]
        }
        guard let address = NetworkAddress(server: key.server) else { return [Name.user: key.account, Name.server: key.server] }
        return address.attributes.merging([Name.user: key.account]) { $1 }
    }

    /// Every distinct attribute set that is an item of `key`, best shape first.
    static func shapes(for key: CredentialKey) -> [(shape: ItemShape, attributes: [String: String])] {
        typealias Name = LibSecretSchema.Attribute
        let current = storeAttributes(for: key)
        guard key.kind == .password else { return [(.current, current)] }
        var legacy = [Name.user: key.account, Name.server: key.server]
        if let url = URLParts(key.server) {
            legacy[Name.protocol] = url.scheme
            if let port = url.port { legacy[Name.port] = String(port) }
        }
        var result: [(shape: ItemShape, attributes: [String: String])] = []
        for (shape, attributes) in [
            (ItemShape.current, current), (.plainPair, [Name.user: key.account, Name.server: key.server]), (.legacy, legacy),
        ]
        where !result.contains(where: { $0.attributes == attributes }) {
            result.append((shape, attributes))
        }
        return result
    }

    /// The searches that together find every item of `key` (each returns supersets, to be
    /// narrowed with `classify`): `user` + each distinct `server` of its shapes, or the
    /// `vault-*` attributes.
    static func searches(for key: CredentialKey) -> [[String: String]] {
        typealias Name = LibSecretSchema.Attribute
        var searches: [[String: String]] = []
        for (_, attributes) in shapes(for: key) {
            let search = attributes.filter { [Name.user, Name.server, Name.vaultKind, Name.vaultServer, Name.vaultAccount].contains($0.key) }
            if !searches.contains(search) { searches.append(search) }
        }
        return searches
    }

    /// The key and shape of an item with `attributes`, or nil when it is nobody's item
    /// of vault's (someone else's item, or one with a key vault could not name).
    static func classify(_ attributes: [String: String]) -> (key: CredentialKey, shape: ItemShape)? {
        typealias Name = LibSecretSchema.Attribute
        let schema = attributes["xdg:schema"]
        let attributes = significant(attributes)
        let candidate: CredentialKey
        if let raw = attributes[Name.vaultKind] {
            guard let kind = ItemKind(rawValue: raw), kind != .password, let server = attributes[Name.vaultServer],
                let account = attributes[Name.vaultAccount]
            else { return nil }
            guard schema == nil || schema == LibSecretSchema.vaultItemName else { return nil }
            candidate = CredentialKey(server: server, account: account, kind: kind)
        } else {
            guard schema.map(passwordSchemas.contains) ?? true else { return nil }
            guard let user = attributes[Name.user], let server = attributes[Name.server] else { return nil }
            // A host in `server` with a `protocol`: the network-address shape. Otherwise the
            // whole server name is in `server` (plain pair, bare host, legacy URL).
            let name = server.contains("://") ? server : (NetworkAddress.url(from: attributes) ?? server)
            candidate = CredentialKey(server: name, account: user)
        }
        guard let match = shapes(for: candidate).first(where: { $0.attributes == attributes }) else { return nil }
        return (candidate, match.shape)
    }
}

/// How vault before the network-address shape recorded a URL server: the whole URL in
/// `server`, plus its scheme (lower-cased) in `protocol` and its explicit port in `port`.
/// Used only to recognise those items (`ItemShape.legacy`).
struct URLParts: Equatable {
    /// The scheme, lower-cased.
    var scheme: String
    /// The explicit port, when the URL names one (1...65535).
    var port: Int?

    init?(_ server: String) {
        guard let colon = server.firstIndex(of: ":"), server[colon...].hasPrefix("://") else { return nil }
        let scheme = server[..<colon]
        guard let first = scheme.unicodeScalars.first, first.isASCIILetter,
            scheme.unicodeScalars.allSatisfy({ $0.isASCIILetter || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) })
        else { return nil }
        self.scheme = scheme.lowercased()

        var authority = server[server.index(colon, offsetBy: 3)...]
        if let end = authority.firstIndex(where: { "/?#".contains($0) }) { authority = authority[..<end] }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        // The port follows the last colon, after an IPv6 literal's closing bracket.
        let hostEnd = authority.lastIndex(of: "]") ?? authority.startIndex
        if let colon = authority[hostEnd...].lastIndex(of: ":") {
            let digits = authority[authority.index(after: colon)...]
            if !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ ("0"..."9").contains($0) }), let port = Int(digits),
                (1...65535).contains(port)
            {
                self.port = port
            }
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
