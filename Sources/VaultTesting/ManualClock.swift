// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultAuth
import VaultSync

/// An ``AuthClock`` the test moves by hand: it reads `start` until ``advance(by:)`` or
/// ``set(_:)`` moves it, so token expiries are reached without sleeping.
public final class ManualClock: AuthClock {
    private let current: Locked<Date>

    /// A clock reading `start` (a fixed moment in November 2023 by default).
    public init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = Locked(start) }

    /// The time the test set.
    public func now() -> Date { current.withLock { $0 } }
    /// Moves the clock forward by `seconds` (backwards when negative).
    public func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    /// Sets the clock to `date`.
    public func set(_ date: Date) { current.withLock { $0 = date } }
}
