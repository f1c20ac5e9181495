import CLibSecret

/// The libsecret schema of vault's password items: GNOME's network-password attributes.
///
/// | attribute  | type    | value                                                      |
/// |------------|---------|------------------------------------------------------------|
/// | `user`     | string  | the account                                                |
/// | `server`   | string  | the server exactly as the caller gave it (host name or URL)|
/// | `protocol` | string  | the URL scheme, lower-cased, only when `server` is a URL   |
/// | `port`     | integer | the URL's explicit port, only when it has one              |
///
/// Items are keyed by `user` + `server` only: every lookup, removal and listing matches
/// those two attributes, so `secret-tool lookup user A server S` (with S exactly as given
/// to vault) finds what vault stored and vault finds what `secret-tool store ... user A
/// server S` stored. `protocol` and `port` are written on store for other tools and never
/// matched. The schema is flagged `SECRET_SCHEMA_DONT_MATCH_NAME`, because items stored by
/// `secret-tool` carry `xdg:schema=org.freedesktop.Secret.Generic`.
///
/// Items of the other kinds (`ItemKind.tokens`, `.settings`: vault's own bookkeeping) use
/// the schema `LibSecretSchema.vaultItem` with the attributes `vault-kind`, `vault-server`
/// and `vault-account` and no `user`/`server`, so a password lookup never matches them.
///
/// Every attribute vault passes must be declared here: libsecret rejects an undeclared
/// attribute by returning FALSE/NULL without a GError.
final class LibSecretSchema: @unchecked Sendable {
    // @unchecked: `pointer` is created once, never mutated, and libsecret only reads it.

    /// The schema name written into `xdg:schema` of the items vault creates.
    static let name = "org.gnome.keyring.NetworkPassword"

    /// The schema name of vault's items of other kinds (tokens, settings).
    static let vaultItemName = "io.github.vault.Item"

    /// Attribute names of the two schemas.
    enum Attribute {
        static let user = "user"
        static let server = "server"
        static let `protocol` = "protocol"
        static let port = "port"
        static let vaultKind = "vault-kind"
        static let vaultServer = "vault-server"
        static let vaultAccount = "vault-account"
    }

    /// The shared password schema (network-password attributes).
    static let password = LibSecretSchema(
        name: name,
        attributes: [
            (Attribute.user, SECRET_SCHEMA_ATTRIBUTE_STRING), (Attribute.server, SECRET_SCHEMA_ATTRIBUTE_STRING),
            (Attribute.protocol, SECRET_SCHEMA_ATTRIBUTE_STRING), (Attribute.port, SECRET_SCHEMA_ATTRIBUTE_INTEGER),
        ])

    /// The shared schema of vault's other item kinds.
    static let vaultItem = LibSecretSchema(
        name: vaultItemName,
        attributes: [
            (Attribute.vaultKind, SECRET_SCHEMA_ATTRIBUTE_STRING), (Attribute.vaultServer, SECRET_SCHEMA_ATTRIBUTE_STRING),
            (Attribute.vaultAccount, SECRET_SCHEMA_ATTRIBUTE_STRING),
        ])

    /// The schema of items of `kind`.
    static func schema(for kind: ItemKind) -> LibSecretSchema { kind == .password ? password : vaultItem }

    /// The `SecretSchema *` owned by this object (one reference).
    let pointer: UnsafeMutablePointer<SecretSchema>

    private init(name: String, attributes: [(String, SecretSchemaAttributeType)]) {
        let types = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, nil)
        defer { g_hash_table_unref(types) }
        for (attribute, type) in attributes {
            // GINT_TO_POINTER(type): STRING is 0 (NULL), INTEGER is 1.
            g_hash_table_insert(types, g_strdup(attribute), UnsafeMutableRawPointer(bitPattern: Int(type.rawValue)))
        }
        pointer = secret_schema_newv(name, SECRET_SCHEMA_DONT_MATCH_NAME, types)
    }

    deinit { secret_schema_unref(pointer) }

    /// The attributes vault stores for `key`: for a password, `user`, `server`, and
    /// `protocol`/`port` when the server is a URL; else the `vault-*` attributes.
    static func storeAttributes(for key: CredentialKey) -> [String: String] {
        var attributes = matchAttributes(for: key)
        if key.kind == .password, let url = URLParts(key.server) {
            attributes[Attribute.protocol] = url.scheme
            if let port = url.port { attributes[Attribute.port] = String(port) }
        }
        return attributes
    }

    /// The attributes every lookup of `key` matches: `user` and `server` for a password,
    /// `vault-kind`, `vault-server` and `vault-account` for the other kinds.
    static func matchAttributes(for key: CredentialKey) -> [String: String] {
        if key.kind == .password { return [Attribute.user: key.account, Attribute.server: key.server] }
        return [
            Attribute.vaultKind: key.kind.rawValue, Attribute.vaultServer: key.server,
            Attribute.vaultAccount: key.account,
        ]
    }

    /// The vault key of an item with these attributes, or nil when it is not one of
    /// vault's kinds of item (a password item needs both `user` and `server`).
    static func key(from attributes: [String: String]) -> CredentialKey? {
        if let user = attributes[Attribute.user], let server = attributes[Attribute.server] {
            return CredentialKey(server: server, account: user, kind: .password)
        }
        if let raw = attributes[Attribute.vaultKind], let kind = ItemKind(rawValue: raw), kind != .password,
            let server = attributes[Attribute.vaultServer], let account = attributes[Attribute.vaultAccount]
        {
            return CredentialKey(server: server, account: account, kind: kind)
        }
        return nil
    }
}

/// The parts of a `scheme://host[:port][/...]` server string that the network-password
/// schema records. Anything else (a bare host name) is not a URL.
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
            if !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCIIDigit }), let port = Int(digits),
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

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
