// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultSync

/// Marks one snapshot of a ``VaultContents``: two reads that give the same revision gave
/// the same contents, byte for byte, so what was derived from the first (the Secret
/// Service provider's attribute index) holds for the second. Comparing the contents
/// instead would not do: Swift's strings compare by canonical equivalence, so an
/// attribute rewritten from "é" precomposed to decomposed compares equal. Revisions are
/// unique in the process; a new one is never equal to an earlier one.
public struct ContentsRevision: Hashable, Sendable {
    private let value: UInt64
    private static let counter = Locked<UInt64>(0)

    /// A revision no earlier call gave.
    public static func next() -> ContentsRevision {
        ContentsRevision(
            value: counter.withLock { counter in
                counter &+= 1
                return counter
            })
    }
}
