// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultSync

/// A list that any thread or task appends to (events, log lines, requests seen), read as
/// a whole by the test.
public final class Recorder<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])

    /// An empty list.
    public init() {}

    /// Adds `element` at the end.
    public func append(_ element: Element) { items.withLock { $0.append(element) } }
    /// Everything appended so far, in order.
    public var all: [Element] { items.withLock { $0 } }
    /// How many elements were appended so far.
    public var count: Int { items.withLock { $0.count } }
}

extension Recorder where Element: Equatable {
    /// How many of the elements appended so far equal `element`.
    public func count(of element: Element) -> Int { all.filter { $0 == element }.count }
}
