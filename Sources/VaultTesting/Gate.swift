// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultSync

/// A one-shot gate that tasks wait on until the test opens it; a wait is bounded, so a
/// test that forgets to open it fails instead of hanging.
public final class Gate: Sendable {
    private let isOpen = Locked(false)

    /// A closed gate.
    public init() {}

    /// Opens the gate: every wait under way and every later one returns true.
    public func open() { isOpen.withLock { $0 = true } }

    /// Returns true when the gate opened, false when `limit` passed first.
    @discardableResult
    public func wait(limit: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while !isOpen.withLock({ $0 }) {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }
}
