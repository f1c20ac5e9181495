// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// The collections and items a ``VaultContents`` shows: `login` (always there) with
/// vault's own items and the Service items stored in it, and every other collection with
/// its Service items.
struct ServiceModel: Sendable {
    let contents: VaultContents

    /// Every collection id, `login` first.
    var collectionIDs: [String] { [ServiceCollection.loginID] + contents.collections.keys.filter { $0 != ServiceCollection.loginID }.sorted() }

    func hasCollection(_ id: String) -> Bool { id == ServiceCollection.loginID || contents.collections[id] != nil }

    /// The collection `id`'s record (`login`'s is made up: label `Login`, no dates).
    func collection(_ id: String) -> ServiceCollection? {
        if id == ServiceCollection.loginID { return ServiceCollection(id: id, label: "Login", created: 0, modified: 0) }
        return contents.collections[id]
    }

    /// The items of collection `id`, by id.
    func items(in id: String) -> [ModelItem] {
        var result: [ModelItem] = []
        if id == ServiceCollection.loginID { result = contents.credentials.values.map(ModelItem.init(credential:)) }
        for (reference, item) in contents.items where reference.collection == id { result.append(ModelItem(item: item)) }
        return result.sorted { $0.id < $1.id }
    }

    /// The item `id` of collection `collection`.
    func item(_ collection: String, _ id: String) -> ModelItem? {
        if let item = contents.items[ServiceItem.Reference(collection: collection, id: id)] { return ModelItem(item: item) }
        guard collection == ServiceCollection.loginID, id.hasPrefix("v") else { return nil }
        return contents.credentials.values.first { ModelItem.id(for: $0.key) == id }.map(ModelItem.init(credential:))
    }

    /// The items whose attributes include all of `query`, in `collection` or everywhere.
    func search(_ query: [String: String], in collection: String? = nil) -> [ModelItem] {
        (collection.map { [$0] } ?? collectionIDs).flatMap { items(in: $0).filter { $0.matches(query) } }
    }
}
