// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CLibSecret

/// The libsecret schemas of vault's items.
///
/// Password items use GNOME's network-password schema (`org.gnome.keyring.NetworkPassword`,
/// the one git's libsecret helper uses): `user`, `server`, `protocol`, `port` (an integer)
/// and `object`. Which of them an item has, and with what values, is `ItemShape`'s job.
/// Both schemas are flagged `SECRET_SCHEMA_DONT_MATCH_NAME`, because items stored by
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
        static let object = "object"
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
            (Attribute.object, SECRET_SCHEMA_ATTRIBUTE_STRING),
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
}
