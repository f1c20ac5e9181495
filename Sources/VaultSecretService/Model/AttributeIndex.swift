// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// The items of one ``VaultContents`` by attribute, so that a search looks only at the
/// items that have the query's rarest attribute instead of at every item.
///
/// The index is keyed by Swift strings, which compare by canonical equivalence: it gives
/// candidates, and ``ServiceModel/search(_:in:)`` keeps those that match byte for byte
/// (``AttributeMatching``), as GNOME Keyring does.
struct AttributeIndex: Sendable {
    private struct Pair: Hashable, Sendable {
        var name: String
        var value: String
    }

    /// Every item with its attributes; ``holders`` counts in it.
    private var entries: [(source: ModelItem.Source, attributes: [String: String])] = []
    private var holders: [Pair: [Int32]] = [:]

    init(_ contents: VaultContents) {
        entries.reserveCapacity(contents.credentials.count + contents.items.count)
        // The credential's own key, not the dictionary's: the dictionary keeps the first
        // of two canonically equivalent keys, the credential the bytes saved last.
        for credential in contents.credentials.values { add(.credential(credential.key), ServiceItemShape.attributes(for: credential.key)) }
        for (reference, item) in contents.items { add(.service(reference), item.attributes) }
    }

    /// The items that may have every attribute of `query` (every item for an empty one):
    /// those holding its rarest pair, with their attributes.
    func candidates(_ query: [String: String]) -> [(source: ModelItem.Source, attributes: [String: String])] {
        guard !query.isEmpty else { return entries }
        var rarest: [Int32] = []
        for (number, (name, value)) in query.enumerated() {
            let found = holders[Pair(name: name, value: value)] ?? []
            if number == 0 || found.count < rarest.count { rarest = found }
            if found.isEmpty { break }
        }
        return rarest.map { entries[Int($0)] }
    }

    private mutating func add(_ source: ModelItem.Source, _ attributes: [String: String]) {
        let number = Int32(entries.count)
        entries.append((source, attributes))
        for (name, value) in attributes { holders[Pair(name: name, value: value), default: []].append(number) }
    }
}
