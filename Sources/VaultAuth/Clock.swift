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
/// the response's `Date` header and the local time it arrived.
///
/// The server wrote its `Date` (truncated to whole seconds, D) at some moment between
/// the local times the request was sent (s) and the response arrived (r), so the true
/// offset lies in (D − r, D + 1 − s). The estimate is that interval's upper end, which
/// can only move expiries *earlier* on the local clock, never later: a slow response
/// never makes an expired token look valid. Estimates within ±1.5 s are taken as zero
/// (the clocks agree as far as one-second dates can tell).
///
/// The correction is bounded by `maximumOffset` (one day either way): a measured offset
/// beyond it is not applied at all (`exceedsBound`, reported with `--verbose`). A `Date`
/// header a year off is far more likely a broken server than a broken local clock, and
/// applying it would make every token look expired (a refresh before every request) or
/// valid for a year; uncorrected, the expiries the server sent still hold, and a 401
/// still leads to one refresh.
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

/// Parses HTTP dates in the IMF-fixdate form every current server sends (RFC 9110
/// §5.6.7, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`). Hand-written: a `DateFormatter` costs
/// about a millisecond to make on Linux and is not `Sendable`.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), let month = months.firstIndex(of: String(parts[2])),
            let year = Int(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, (1...31).contains(day), (1970...9999).contains(year), (0...23).contains(clock[0]),
            (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        return Date(
            timeIntervalSince1970: TimeInterval(
                daysSinceEpoch(year: year, month: month + 1, day: day) * 86_400
                    + clock[0] * 3600 + clock[1] * 60 + clock[2]))
    }

    /// Days from 1970-01-01 to the given civil date (proleptic Gregorian calendar).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
