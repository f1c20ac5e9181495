// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// What ``VaultContents/storeItem(collection:attributes:label:contentType:secret:replace:now:)`` stored.
struct StoredItem: Sendable, Equatable {
    /// The item stored (new or updated).
    var source: ModelItem.Source
    /// The item it replaced as another record (a credential a binary secret replaced, a
    /// Service item a credential replaced), whose path it takes; nil when none.
    var takesPathOf: ModelItem.Source?
    /// False when it replaced an item.
    var isNew: Bool
}

/// The changes Secret Service calls make to a vault's contents, one read-modify-write
/// each. An item in vault's shape (``ServiceItemShape``) stored in `login` with a text
/// secret (``ModelItem/isText(_:)``: `text/plain`, parameters allowed) becomes a
/// ``Credential``, so `vault load` finds it; anything else is a ``ServiceItem`` kept
/// exactly as given.
extension VaultContents {
    /// Stores a new item; with `replace`, replaces every item of exactly these attributes in
    /// the collection (one item of them is left: updated in place when it is the record the
    /// new one is, else deleted and its path taken). Without `replace`, an item in vault's
    /// shape whose credential exists already is kept beside it as a Service item, as GNOME
    /// Keyring keeps two items of equal attributes: it never overwrites that credential.
    mutating func storeItem(
        collection: String, attributes: [String: String], label: String, contentType: String, secret: Secret, replace: Bool,
        now: UInt64
    ) throws(ServiceFault) -> StoredItem {
        guard hasCollection(collection) else { throw .noSuchObject(collection) }
        let matching = replace ? sources(withAttributes: attributes, in: collection) : []
        if collection == ServiceCollection.loginID, ModelItem.isText(contentType), let key = ServiceItemShape.credentialKey(for: attributes),
            replace || credentials[key] == nil
        {
            for case .service(let reference) in matching { items[reference] = nil }
            credentials[key] = Credential(key: key, secret: secret, label: label)
            let source = ModelItem.Source.credential(key)
            return StoredItem(source: source, takesPathOf: matching.first.flatMap { $0 == source ? nil : $0 }, isNew: matching.isEmpty)
        }
        if case .service(let reference)? = matching.first(where: { if case .service = $0 { true } else { false } }),
            var existing = items[reference]
        {
            for other in matching where other != .service(reference) { remove(other) }
            existing.label = label
            existing.contentType = contentType
            existing.secret = secret
            existing.modified = now
            items[reference] = existing
            return StoredItem(source: .service(reference), takesPathOf: nil, isNew: false)
        }
        for other in matching { remove(other) }
        let reference = ServiceItem.Reference(collection: collection, id: newItemID(in: collection))
        items[reference] = ServiceItem(
            reference: reference, label: label, attributes: attributes, contentType: contentType, secret: secret, created: now, modified: now)
        return StoredItem(source: .service(reference), takesPathOf: matching.first, isNew: matching.isEmpty)
    }

    /// Replaces the secret of an item; returns the item afterwards. A secret that is not
    /// text (``ModelItem/isText(_:)``) cannot be a vault credential: given to one, it turns
    /// that credential into a Service item of the same attributes (`vault load` no longer
    /// finds it; the caller logs it), which takes its path.
    mutating func setSecret(of item: ModelItem, secret: Secret, contentType: String, now: UInt64) throws(ServiceFault) -> ModelItem.Source {
        switch item.source {
        case .credential(let key):
            guard var credential = credentials[key] else { throw .noSuchObject(item.id) }
            guard ModelItem.isText(contentType) else {
                credentials[key] = nil
                return try storeItem(
                    collection: item.collection, attributes: item.attributes, label: item.label, contentType: contentType, secret: secret,
                    replace: false, now: now
                ).source
            }
            credential.secret = secret
            credentials[key] = credential
        case .service(let reference):
            guard var stored = items[reference] else { throw .noSuchObject(item.id) }
            stored.secret = secret
            stored.contentType = contentType
            stored.modified = now
            items[reference] = stored
        }
        return item.source
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

    /// Gives an item new attributes; returns the item afterwards (a credential is the record
    /// of its key, so one given another key, or leaving or taking vault's shape, is another
    /// record: its path moves with it, ``ItemPaths/move(_:to:)``). Attributes naming another
    /// item's credential never overwrite it: the item stays a Service item.
    mutating func setAttributes(of item: ModelItem, attributes: [String: String], now: UInt64) throws(ServiceFault) -> ModelItem.Source {
        let key =
            item.collection == ServiceCollection.loginID && ModelItem.isText(item.contentType)
            ? ServiceItemShape.credentialKey(for: attributes) : nil
        if case .service(let reference) = item.source, key.map({ credentials[$0] != nil }) ?? true {
            guard var stored = items[reference] else { throw .noSuchObject(item.id) }
            stored.attributes = attributes
            stored.modified = now
            items[reference] = stored
            return item.source
        }
        try delete(item)
        return try storeItem(
            collection: item.collection, attributes: attributes, label: item.label, contentType: item.contentType, secret: item.secret,
            replace: false, now: now
        ).source
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

    /// The items of exactly `attributes` (byte for byte) in `collection`: the credential
    /// first, then the Service items in order.
    private func sources(withAttributes attributes: [String: String], in collection: String) -> [ModelItem.Source] {
        var found: [ModelItem.Source] = []
        if collection == ServiceCollection.loginID, let key = ServiceItemShape.credentialKey(for: attributes), credentials[key] != nil,
            AttributeMatching.equal(ServiceItemShape.attributes(for: key), attributes)
        {
            found.append(.credential(key))
        }
        let references = items.values.filter { $0.reference.collection == collection && AttributeMatching.equal($0.attributes, attributes) }
        return found + references.map(\.reference).sorted().map(ModelItem.Source.service)
    }

    private mutating func remove(_ source: ModelItem.Source) {
        switch source {
        case .credential(let key): credentials[key] = nil
        case .service(let reference): items[reference] = nil
        }
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
