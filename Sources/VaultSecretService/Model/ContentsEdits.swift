// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// The changes Secret Service calls make to a vault's contents, one read-modify-write
/// each. An item in vault's shape (``ServiceItemShape``) stored in `login` as `text/plain`
/// becomes a ``Credential``, so `vault load` finds it; anything else is a ``ServiceItem``
/// kept exactly as given.
extension VaultContents {
    /// Stores a new item (or, with `replace`, updates the item of exactly these attributes);
    /// returns its id and whether it is new. Without `replace`, an item in vault's shape whose
    /// credential exists already is kept beside it as a Service item, as GNOME Keyring keeps
    /// two items of equal attributes: it never overwrites that credential.
    mutating func storeItem(
        collection: String, attributes: [String: String], label: String, contentType: String, secret: Secret, replace: Bool,
        now: UInt64
    ) throws(ServiceFault) -> (id: String, isNew: Bool) {
        guard ServiceModel(contents: self).hasCollection(collection) else { throw .noSuchObject(collection) }
        if collection == ServiceCollection.loginID, contentType == "text/plain", let key = ServiceItemShape.credentialKey(for: attributes),
            replace || credentials[key] == nil
        {
            let isNew = credentials[key] == nil
            credentials[key] = Credential(key: key, secret: secret, label: label)
            return (ModelItem.id(for: key), isNew)
        }
        if replace,
            let existing = items.values.first(where: { $0.reference.collection == collection && AttributeMatching.equal($0.attributes, attributes) })
        {
            var item = existing
            item.label = label
            item.contentType = contentType
            item.secret = secret
            item.modified = now
            items[item.reference] = item
            return (item.reference.id, false)
        }
        let reference = ServiceItem.Reference(collection: collection, id: newItemID(in: collection))
        items[reference] = ServiceItem(
            reference: reference, label: label, attributes: attributes, contentType: contentType, secret: secret, created: now, modified: now)
        return (reference.id, true)
    }

    /// Replaces the secret of an item.
    mutating func setSecret(of item: ModelItem, secret: Secret, contentType: String, now: UInt64) throws(ServiceFault) {
        switch item.source {
        case .credential(let key):
            guard var credential = credentials[key] else { throw .noSuchObject(item.id) }
            if contentType == "text/plain" {
                credential.secret = secret
                credentials[key] = credential
            } else {
                // A binary secret cannot be a vault credential: keep it as a Service item.
                credentials[key] = nil
                _ = try storeItem(
                    collection: item.collection, attributes: item.attributes, label: item.label, contentType: contentType, secret: secret,
                    replace: false, now: now)
            }
        case .service(let reference):
            guard var stored = items[reference] else { throw .noSuchObject(item.id) }
            stored.secret = secret
            stored.contentType = contentType
            stored.modified = now
            items[reference] = stored
        }
    }

    /// Relabels an item.
    mutating func setLabel(of item: ModelItem, label: String, now: UInt64) throws(ServiceFault) {
        switch item.source {
        case .credential(let key):
            guard var credential = credentials[key] else { throw .noSuchObject(item.id) }
            credential.label = label
            credentials[key] = credential
        case .service(let reference):
            guard var stored = items[reference] else { throw .noSuchObject(item.id) }
            stored.label = label
            stored.modified = now
            items[reference] = stored
        }
    }

    /// Gives an item new attributes; returns its id afterwards (a credential's id follows its
    /// key, and an item that takes or leaves vault's shape changes record and id). Attributes
    /// naming another item's credential never overwrite it: the item stays a Service item.
    mutating func setAttributes(of item: ModelItem, attributes: [String: String], now: UInt64) throws(ServiceFault) -> String {
        let key =
            item.collection == ServiceCollection.loginID && item.contentType == "text/plain"
            ? ServiceItemShape.credentialKey(for: attributes) : nil
        if case .service(let reference) = item.source, key.map({ credentials[$0] != nil }) ?? true {
            guard var stored = items[reference] else { throw .noSuchObject(item.id) }
            stored.attributes = attributes
            stored.modified = now
            items[reference] = stored
            return reference.id
        }
        try delete(item)
        return try storeItem(
            collection: item.collection, attributes: attributes, label: item.label, contentType: item.contentType, secret: item.secret,
            replace: false, now: now
        ).id
    }

    /// Deletes an item.
    mutating func delete(_ item: ModelItem) throws(ServiceFault) {
        switch item.source {
        case .credential(let key):
            guard credentials.removeValue(forKey: key) != nil else { throw .noSuchObject(item.id) }
        case .service(let reference):
            guard items.removeValue(forKey: reference) != nil else { throw .noSuchObject(item.id) }
        }
    }

    /// Creates a collection labelled `label`; returns its id (from the label, made unique).
    mutating func createCollection(label: String, now: UInt64) -> String {
        var base = String(
            label.lowercased().unicodeScalars.map { scalar in
                ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) ? Character(scalar) : "_"
            }.prefix(40))
        if base.isEmpty || base == ServiceCollection.loginID { base = "collection" }
        var id = base
        var counter = 1
        while id == ServiceCollection.loginID || collections[id] != nil {
            counter += 1
            id = "\(base)_\(counter)"
        }
        collections[id] = ServiceCollection(id: id, label: label, created: now, modified: now)
        return id
    }

    /// Deletes a collection (never `login`) and its items.
    mutating func deleteCollection(_ id: String) throws(ServiceFault) {
        guard id != ServiceCollection.loginID else { throw .notSupported("the login collection holds vault's own items and cannot be deleted") }
        guard collections.removeValue(forKey: id) != nil else { throw .noSuchObject(id) }
        for reference in items.keys where reference.collection == id { items[reference] = nil }
    }

    /// Relabels a collection (never `login`, whose label is fixed).
    mutating func setCollectionLabel(_ id: String, label: String, now: UInt64) throws(ServiceFault) {
        guard id != ServiceCollection.loginID else { throw .readOnly("org.freedesktop.Secret.Collection.Label of login") }
        guard var collection = collections[id] else { throw .noSuchObject(id) }
        collection.label = label
        collection.modified = now
        collections[id] = collection
    }

    /// A fresh id for a Service item: `s` and 16 random hex digits.
    private func newItemID(in collection: String) -> String {
        var id = ""
        for _ in 0..<16 {
            id = "s" + String(UInt64.random(in: 1 << 60...UInt64.max), radix: 16)
            if items[ServiceItem.Reference(collection: collection, id: id)] == nil { break }
        }
        return id
    }
}
