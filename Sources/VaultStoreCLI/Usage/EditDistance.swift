// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The "did you mean" of a usage error: the known name nearest to a mistyped one.
package enum Suggestion {
    /// The Levenshtein distance between `a` and `b` (insertions, deletions, substitutions).
    package static func distance(_ a: String, _ b: String) -> Int {
        let left = Array(a)
        let right = Array(b)
        guard !left.isEmpty else { return right.count }
        guard !right.isEmpty else { return left.count }
        var previous = Array(0...right.count)
        for (i, character) in left.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: right.count)
            for j in right.indices {
                let substitution = previous[j] + (character == right[j] ? 0 : 1)
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, substitution)
            }
            previous = current
        }
        return previous[right.count]
    }

    /// The candidate nearest to `typed`: within two edits (one for names of three characters or
    /// fewer), or the only candidate that starts with it; nil when none is near enough.
    package static func nearest(to typed: String, in candidates: [String]) -> String? {
        // A word far longer than any name is no typo of one (and would cost seconds).
        guard typed.utf8.count <= 64 else { return nil }
        let limit = typed.count <= 3 ? 1 : 2
        let scored = candidates.map { (name: $0, distance: distance(typed, $0)) }.filter { $0.distance <= limit }
        if let best = scored.min(by: { $0.distance < $1.distance }) { return best.name }
        let prefixed = candidates.filter { $0.hasPrefix(typed) && typed.count >= 3 }
        return prefixed.count == 1 ? prefixed[0] : nil
    }
}
