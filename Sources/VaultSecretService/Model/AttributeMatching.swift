// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Attribute comparisons byte for byte, as GNOME Keyring makes them. Swift compares
/// strings by canonical equivalence, so "é" precomposed and "e" + U+0301 are equal to it:
/// a search with one would find (and `secret-tool clear` delete) an item stored with the
/// other, another program's item among them.
package enum AttributeMatching {
    /// Whether `item` has every attribute of `query`, names and values equal byte for byte.
    static func matches(_ item: [String: String], _ query: [String: String]) -> Bool {
        query.allSatisfy { wanted in item.contains { same($0.key, wanted.key) && same($0.value, wanted.value) } }
    }

    /// Whether the two sets are the same, byte for byte.
    package static func equal(_ a: [String: String], _ b: [String: String]) -> Bool {
        a.count == b.count && matches(a, b)
    }

    package static func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }
}
