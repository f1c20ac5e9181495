// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// How vault's own items (``Credential``) look to a Secret Service client, for the
/// provider `vault agent --secret-service` runs: the attribute set of a key's item, and the
/// key an attribute set names. The same shapes ``SecretServiceStore`` writes into a
/// keyring (docs/secret-service.md), so `secret-tool lookup user A server H` finds what
/// `vault save` stored, and `vault load` what `secret-tool store` stored in that shape.
public enum ServiceItemShape {
    /// The attributes of `key`'s item, `xdg:schema` included: the network-password schema
    /// for a password, vault's own schema for the other kinds.
    public static func attributes(for key: CredentialKey) -> [String: String] {
        var attributes = ItemShape.storeAttributes(for: key)
        attributes["xdg:schema"] = key.kind == .password ? LibSecretSchema.name : LibSecretSchema.vaultItemName
        return attributes
    }

    /// The key whose item `attributes` is, exactly: ``attributes(for:)`` of that key, its
    /// `xdg:schema` included (what vault's own Secret Service backend writes). Nil for any
    /// other set, which the provider keeps as a ``ServiceItem`` exactly as given, so a
    /// client's schema is never rewritten (`secret-tool store`'s generic one stays). The key
    /// is validated.
    public static func credentialKey(for attributes: [String: String]) -> CredentialKey? {
        guard let (key, shape) = ItemShape.classify(attributes), shape == .current, attributes == Self.attributes(for: key) else {
            return nil
        }
        return try? key.validated()
    }
}
