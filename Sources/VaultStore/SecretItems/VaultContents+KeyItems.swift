// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The file backend's reading rule, the keyring's (``ItemShape``): besides vault's own
/// items, an item a client stored through `vault agent --secret-service` is the item of a
/// key when it is in `login`, holds text, and its attributes are exactly one of the key's
/// shapes (`secret-tool store user A server S` writes the plain pair). So `vault load`
/// reads on the file what it reads from GNOME Keyring, and an item in any other shape
/// (another application's) is never read, changed or removed.
extension VaultContents {
    /// The clients' items of `key`, best shape first and, within a shape, newest first.
    func clientItems(of key: CredentialKey) -> [(item: ServiceItem, shape: ItemShape)] {
        // Every shape of a key names its account (`user`, or `vault-account`): other accounts'
        // items are passed over before the costlier classification.
        items.values.compactMap { item -> (item: ServiceItem, shape: ItemShape)? in
            guard
                item.attributes[LibSecretSchema.Attribute.user] == key.account
                    || item.attributes[LibSecretSchema.Attribute.vaultAccount] == key.account,
                let match = Self.keyOf(item), Self.sameSpelling(match.key, key)
            else { return nil }
            return (item, match.shape)
        }
        .sorted(by: Self.ranksBefore)
    }

    /// Whether `a` and `b` are one key byte for byte. A keyring's search matches bytes;
    /// `String`'s `==` takes canonically equivalent spellings (é, and e + U+0301) for one,
    /// and a client's item is the item of its own spelling only (attack review 50).
    static func sameSpelling(_ a: CredentialKey, _ b: CredentialKey) -> Bool {
        a.kind == b.kind && a.server.utf8.elementsEqual(b.server.utf8) && a.account.utf8.elementsEqual(b.account.utf8)
    }

    /// Whether `a` is read before `b`: the better shape, then the newer, then the smaller id.
    static func ranksBefore(_ a: (item: ServiceItem, shape: ItemShape), _ b: (item: ServiceItem, shape: ItemShape)) -> Bool {
        (a.shape, b.item.modified, a.item.reference) < (b.shape, a.item.modified, b.item.reference)
    }

    /// The key and shape `item` is an item of, or nil: not in `login`, not text, or not in
    /// one of a key's shapes.
    static func keyOf(_ item: ServiceItem) -> (key: CredentialKey, shape: ItemShape)? {
        guard item.reference.collection == ServiceCollection.loginID, ContentType.isText(item.contentType) else { return nil }
        return ItemShape.classify(item.attributes)
    }

    /// The item `load` reads for `key`: vault's own, else the best client item.
    func credential(for key: CredentialKey) -> Credential? {
        if let own = credentials[key] { return own }
        guard let best = clientItems(of: key).first?.item else { return nil }
        return Credential(key: key, secret: best.secret, label: best.label)
    }

    /// One entry per key that has an item by the rule: vault's own label, else the best client item's.
    var keyedInfos: [CredentialInfo] {
        // One pass over the clients' items: the best of each key without one of vault's own.
        var best: [CredentialKey: (item: ServiceItem, shape: ItemShape)] = [:]
        for item in items.values {
            guard let match = Self.keyOf(item), credentials[match.key] == nil else { continue }
            if let known = best[match.key], Self.ranksBefore(known, (item, match.shape)) { continue }
            best[match.key] = (item, match.shape)
        }
        let clients = best.map { CredentialInfo(key: $0.key, label: $0.value.item.label) }
        return (credentials.values.map(\.info) + clients).sorted()
    }

    /// `save` as on a keyring: vault's own item of the key is updated; else the best client
    /// item of the current or plain-pair shape gets the secret in place (its label too, when
    /// one is given), else vault's item is made. The key's other client items (duplicates,
    /// an older shape) are removed. A label equal to the default counts as none given.
    mutating func save(_ credential: Credential, now: UInt64) {
        let labelGiven = credential.label != Credential.defaultLabel(for: credential.key)
        let clients = clientItems(of: credential.key)
        var kept: ServiceItem.Reference?
        if credentials[credential.key] == nil, let best = clients.first(where: { $0.shape != .legacy })?.item {
            var updated = best
            updated.secret = credential.secret
            if labelGiven { updated.label = credential.label }
            updated.modified = now
            items[best.reference] = updated
            kept = best.reference
        } else {
            credentials[credential.key] = credential
        }
        for (item, _) in clients where item.reference != kept { items[item.reference] = nil }
    }

    /// `remove`: vault's own item of `key` and every client item of it. Whether any was there.
    mutating func remove(_ key: CredentialKey) -> Bool {
        var removed = credentials.removeValue(forKey: key) != nil
        for (item, _) in clientItems(of: key) {
            items[item.reference] = nil
            removed = true
        }
        return removed
    }
}

/// Secret content types.
public enum ContentType {
    /// Whether a secret of `contentType` is text, as vault's credentials hold: `text/plain`,
    /// with any parameters (`text/plain; charset=utf8`), the media type in any case (RFC 2045).
    /// Only ASCII letters fold (the Kelvin sign is not a `k`).
    public static func isText(_ contentType: String) -> Bool {
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        let mediaType = contentType.utf8.prefix { $0 != UInt8(ascii: ";") }.drop(while: isBlank).reversed().drop(while: isBlank).reversed()
        let folded = mediaType.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
        return folded.elementsEqual("text/plain".utf8)
    }
}
