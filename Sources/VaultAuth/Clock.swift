// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// The wall clock VaultAuth reads. Tests inject one that is minutes ahead or behind.
public protocol AuthClock: Sendable {
    /// The current wall-clock time, on the local clock that token expiries are kept on.
    func now() -> Date
}

/// The system's wall clock.
public struct SystemClock: AuthClock {
    /// The system clock; it holds no state.
    public init() {}
    /// `Date()`, the system's wall clock; see ``AuthClock/now()``.
    public func now() -> Date { Date() }
}

/// Converts the server's absolute times to the local clock, using the offset between
/// the response's `Date` header and the local time it arrived. The estimate can only move
/// expiries *earlier* on the local clock, never later, so a slow response never makes an expired
/// token look valid; within ±1.5 s it is zero, and beyond ``maximumOffset`` (a day either way) it
/// is not applied at all (`exceedsBound`, reported with `--verbose`): such a `Date` is more likely
/// a broken server than a broken local clock. The arithmetic and why: docs/tokens.md, "Clock skew".
public struct ClockSkew: Sendable, Equatable {
    /// Server time minus local time, in seconds, as applied (0 beyond the bound).
    public let offset: TimeInterval
    /// The offset that was measured.
    public let measuredOffset: TimeInterval

    /// The largest correction applied, in seconds either way.
    public static let maximumOffset: TimeInterval = 86_400

    /// A skew of `offset` seconds (server minus local). Beyond ``maximumOffset`` either way it is kept in
    /// ``measuredOffset`` only, and ``offset`` is 0.
    public init(offset: TimeInterval) {
        self.measuredOffset = offset
        self.offset = abs(offset) <= Self.maximumOffset ? offset : 0
    }

    /// True when the measured offset was beyond `maximumOffset`, so none was applied.
    public var exceedsBound: Bool { offset != measuredOffset }

    /// No correction (offset 0): the clocks agree, or the response had no usable `Date` header.
    public static let none = ClockSkew(offset: 0)

    /// The skew measured from a `Date` header value of a response to a request sent at
    /// `sentAt` and received at `receivedAt` (local times). Without `sentAt` the middle
    /// of the header's one-second window is used.
    public static func measure(dateHeader: String?, sentAt: Date? = nil, receivedAt: Date) -> ClockSkew {
        guard let dateHeader, let serverDate = HTTPDate.parse(dateHeader) else { return .none }
        let offset: TimeInterval
        if let sentAt {
            offset = serverDate.addingTimeInterval(1).timeIntervalSince(min(sentAt, receivedAt))
        } else {
            offset = serverDate.addingTimeInterval(0.5).timeIntervalSince(receivedAt)
        }
        return abs(offset) <= 1.5 ? .none : ClockSkew(offset: offset)
    }

    /// A server timestamp on the local clock.
    public func local(_ serverTime: Date) -> Date { serverTime.addingTimeInterval(-offset) }
}
