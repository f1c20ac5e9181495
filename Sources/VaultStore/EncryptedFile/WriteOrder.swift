// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The order a vault file lists its records in (sorted, see docs/file-format.md), kept from
/// one write to the next: a write sorts only the keys it added. Sorting 10,000 keys again
/// for every save of one item took about 10 ms of a save's 25 ms budget.
///
/// The order is only a hint: a file in any order is read the same (readers must not depend
/// on it), so a stale hint costs time, never contents.
package struct WriteOrder: Sendable {
    /// vault's own items' keys, by ``CredentialKey``'s order.
    package var credentials: [CredentialKey] = []
    /// The Secret Service items' references, by ``ServiceItem/Reference``'s order.
    package var items: [ServiceItem.Reference] = []
    /// The size of the last body written: the next one's buffer is made that large at once.
    package var bodySize = 0

    package init() {}

    /// The entries of `dictionary` sorted by key with `precedes`: those of `previous`'s keys
    /// (sorted by it) still there, in its order, with the others sorted and merged in. Each
    /// key is looked up once; the caller keeps the keys as the next `previous`.
    static func entries<Key: Hashable, Value>(
        of dictionary: [Key: Value], reusing previous: [Key], by precedes: (Key, Key) -> Bool
    ) -> [(key: Key, value: Value)] {
        let kept = previous.compactMap { key in dictionary[key].map { (key: key, value: $0) } }
        if kept.count == dictionary.count { return kept }
        let known = Set(kept.map(\.key))
        let added = dictionary.filter { !known.contains($0.key) }.sorted { precedes($0.key, $1.key) }
        guard !kept.isEmpty else { return added }
        var merged: [(key: Key, value: Value)] = []
        merged.reserveCapacity(dictionary.count)
        var (i, j) = (kept.startIndex, added.startIndex)
        while i < kept.endIndex, j < added.endIndex {
            if precedes(added[j].key, kept[i].key) {
                merged.append(added[j])
                j += 1
            } else {
                merged.append(kept[i])
                i += 1
            }
        }
        merged.append(contentsOf: kept[i...])
        merged.append(contentsOf: added[j...])
        return merged
    }
}
