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

    /// The key whose item `attributes` is, exactly: its current shape (nothing more, nothing
    /// less, `xdg:schema` aside) with no schema or one a vault item of that kind may carry
    /// (a password: the network-password schema, `org.freedesktop.Secret.Generic` of
    /// `secret-tool`, `org.git.Password`; other kinds: vault's own). Nil for any other set,
    /// which the provider keeps as a ``ServiceItem``. The key is validated.
    public static func credentialKey(for attributes: [String: String]) -> CredentialKey? {
        guard let (key, shape) = ItemShape.classify(attributes), shape == .current else { return nil }
        var rest = attributes
        rest["xdg:schema"] = nil
        guard rest == ItemShape.storeAttributes(for: key) else { return nil }
        return try? key.validated()
    }
}
