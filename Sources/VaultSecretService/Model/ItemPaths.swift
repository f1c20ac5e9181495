// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// Which item each item object path names, for one provider's life, as GNOME Keyring keeps
/// them: a path names one item only and is never handed to another item afterwards (a call on
/// the path of an item that is gone answers `NoSuchObject`); an item keeps its path while it is
/// there, across other processes' changes of the vault file and across `SetAttributes`
/// (``move(_:to:)``). The same item is one record seen without a break (a credential of one key,
/// a Service item of one reference); a path is the item's own id (``ModelItem/id(for:)``) unless
/// that was handed out before. The map is kept in memory only. Docs: docs/secret-service.md,
/// "vault as the Secret Service: `vault agent --secret-service`".
struct ItemPaths: Sendable, Equatable {
    /// An item's object path: its collection and the path's last element.
    struct Path: Hashable, Sendable {
        var collection: String
        var id: String
    }

    private var ids: [ModelItem.Source: String] = [:]
    private var sources: [Path: ModelItem.Source] = [:]
    /// Every path ever handed out, so that none is handed out twice.
    private var handedOut: Set<Path> = []
    private var counter: UInt64 = 0

    /// The last element of the path of `source`; nil when it has none (it is not there).
    func id(of source: ModelItem.Source) -> String? { ids[source] }

    /// The item whose path is `collection`/`id` now; nil when none is.
    func source(_ collection: String, _ id: String) -> ModelItem.Source? { sources[Path(collection: collection, id: id)] }

    /// Follows `contents`: every item there keeps its path or gets a new one, every item
    /// gone loses its path for good. Returns the paths lost; `changed` is false when the
    /// map is as it was.
    mutating func update(for contents: VaultContents) -> (changed: Bool, gone: [Path]) {
        var present = Set(contents.credentials.keys.map(ModelItem.Source.credential))
        present.formUnion(contents.items.keys.map(ModelItem.Source.service))
        var gone: [Path] = []
        for (source, id) in ids where !present.contains(source) {
            let path = Path(collection: source.collection, id: id)
            ids[source] = nil
            sources[path] = nil
            gone.append(path)
        }
        var added = false
        for source in present.filter({ ids[$0] == nil }).sorted(by: Self.order) {
            assign(source)
            added = true
        }
        return (added || !gone.isEmpty, gone)
    }

    /// Gives `new` the path `old` had (an item that `SetAttributes` or `SetSecret` moved to
    /// another key or record); `old` has none afterwards. Nothing happens when `old` has no
    /// path or `new` has one.
    mutating func move(_ old: ModelItem.Source, to new: ModelItem.Source) {
        guard old != new, ids[new] == nil, let id = ids.removeValue(forKey: old), old.collection == new.collection else { return }
        ids[new] = id
        sources[Path(collection: new.collection, id: id)] = new
    }

    private mutating func assign(_ source: ModelItem.Source) {
        let natural =
            switch source {
            case .credential(let key): ModelItem.id(for: key)
            case .service(let reference): reference.id
            }
        var path = Path(collection: source.collection, id: natural)
        while handedOut.contains(path) {
            counter += 1
            path.id = natural.utf8.count <= 40 ? "\(natural)_\(counter)" : "r\(counter)"
        }
        handedOut.insert(path)
        ids[source] = path.id
        sources[path] = source
    }

    /// Credentials first, then Service items, each in a fixed order, so that the paths given
    /// to a set of new items do not depend on a dictionary's order.
    private static func order(_ a: ModelItem.Source, _ b: ModelItem.Source) -> Bool {
        switch (a, b) {
        case (.credential(let x), .credential(let y)): x < y
        case (.credential, .service): true
        case (.service, .credential): false
        case (.service(let x), .service(let y)): x < y
        }
    }
}

extension ModelItem.Source {
    /// The collection the item is in: `login` for vault's credentials.
    var collection: String {
        switch self {
        case .credential: ServiceCollection.loginID
        case .service(let reference): reference.collection
        }
    }
}
