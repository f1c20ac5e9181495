// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// The collections and items a ``VaultContents`` shows: `login` (always there) with
/// vault's own items and the Service items stored in it, and every other collection with
/// its Service items, each at its path of ``ItemPaths`` (an item with none is not shown).
struct ServiceModel: Sendable {
    let contents: VaultContents
    let paths: ItemPaths
    /// The items by attribute, for ``search(_:in:)``; a search makes one when it is not given.
    let index: AttributeIndex?

    init(contents: VaultContents, paths: ItemPaths, index: AttributeIndex? = nil) {
        self.contents = contents
        self.paths = paths
        self.index = index
    }

    /// Every collection id, `login` first.
    var collectionIDs: [String] { [ServiceCollection.loginID] + contents.collections.keys.filter { $0 != ServiceCollection.loginID }.sorted() }

    func hasCollection(_ id: String) -> Bool { contents.hasCollection(id) }

    /// The collection `id`'s record (`login`'s is made up: label `Login`, no dates).
    func collection(_ id: String) -> ServiceCollection? {
        if id == ServiceCollection.loginID { return ServiceCollection(id: id, label: "Login", created: 0, modified: 0) }
        return contents.collections[id]
    }

    /// The items of collection `id`, by id.
    func items(in id: String) -> [ModelItem] {
        var result: [ModelItem] = []
        if id == ServiceCollection.loginID {
            for credential in contents.credentials.values {
                if let path = paths.id(of: .credential(credential.key)) { result.append(ModelItem(credential: credential, id: path)) }
            }
        }
        for (reference, item) in contents.items where reference.collection == id {
            if let path = paths.id(of: .service(reference)) { result.append(ModelItem(item: item, id: path)) }
        }
        return result.sorted { $0.id < $1.id }
    }

    /// The item at path `collection`/`id`.
    func item(_ collection: String, _ id: String) -> ModelItem? {
        switch paths.source(collection, id) {
        case .credential(let key)?: contents.credentials[key].map { ModelItem(credential: $0, id: id) }
        case .service(let reference)?: contents.items[reference].map { ModelItem(item: $0, id: id) }
        case nil: nil
        }
    }

    /// The items whose attributes include all of `query`, byte for byte, in `collection` or
    /// everywhere: `login`'s first, then by collection and id.
    func search(_ query: [String: String], in collection: String? = nil) -> [ModelItem] {
        var found: [ModelItem] = []
        for (source, attributes) in (index ?? AttributeIndex(contents)).candidates(query) {
            guard collection == nil || source.collection == collection, hasCollection(source.collection),
                AttributeMatching.matches(attributes, query), let id = paths.id(of: source), let item = item(source, id)
            else { continue }
            found.append(item)
        }
        return found.sorted { Self.order($0) < Self.order($1) }
    }

    private func item(_ source: ModelItem.Source, _ id: String) -> ModelItem? {
        switch source {
        case .credential(let key): contents.credentials[key].map { ModelItem(credential: $0, id: id) }
        case .service(let reference): contents.items[reference].map { ModelItem(item: $0, id: id) }
        }
    }

    /// Where an item comes in a listing: `login` first, then by collection, then by id.
    private static func order(_ item: ModelItem) -> (Int, String, String) {
        (item.collection == ServiceCollection.loginID ? 0 : 1, item.collection, item.id)
    }
}

extension VaultContents {
    /// Whether collection `id` exists (`login` always does).
    func hasCollection(_ id: String) -> Bool { id == ServiceCollection.loginID || collections[id] != nil }
}
