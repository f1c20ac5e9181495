// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultAuth

/// What the agent keeps of an account's tokens between refreshes: their dates, never the
/// tokens themselves (the account's ``TokenSource`` holds those).
struct TokenDates: Equatable, Sendable {
    var obtainedAt: Date
    var accessTokenExpiry: Date
    var refreshTokenExpiry: Date?
    var hasRefreshToken: Bool

    init(_ tokens: TokenSet) {
        obtainedAt = tokens.obtainedAt
        accessTokenExpiry = tokens.accessTokenExpiry
        refreshTokenExpiry = tokens.refreshTokenExpiry
        hasRefreshToken = tokens.refreshToken != nil
    }

    /// True when `other` are other tokens than these (a refresh, an adoption, a new login),
    /// not the same ones with their refresh token forgotten.
    func differ(from other: TokenDates) -> Bool {
        obtainedAt != other.obtainedAt || accessTokenExpiry != other.accessTokenExpiry
    }
}

/// When the agent refreshes an account ahead of time (``TokenSource/refreshAhead()``).
///
/// - Ahead of the access token's expiry: at 75 % of its lifetime, and never later than the
///   expiry less the leeway (the leeway at most half the lifetime, as ``TokenSet/freshness(at:leeway:)``
///   takes it), so a served token is always fresh.
/// - Ahead of the refresh token's idle window: the window ends at the refresh token's
///   expiry when the provider said it (`refresh_expires_in`, the reference API's
///   `refreshTokenExpire`), else `keepAlive` after the tokens were obtained (the last
///   refresh); the refresh comes at two thirds of the window.
/// - A window that a refresh did not move on is absolute (a session's maximum age, not its
///   idle time): refreshing earlier and earlier would not save it, so it is no longer planned
///   for (``absoluteWindowEnd``); the silent re-login takes over when it ends.
struct KeepAliveSchedule: Sendable {
    /// The leeway of the account's token source, in seconds.
    var leeway: TimeInterval
    /// The idle window to keep ahead of when the provider does not say it.
    var keepAlive: Duration?

    /// The fraction of the access token's lifetime after which it is refreshed.
    static let accessFraction = 0.75
    /// The fraction of the refresh token's window after which it is refreshed.
    static let windowFraction = 2.0 / 3.0

    /// When the tokens `dates` should be refreshed; `absoluteWindowEnd` is a refresh-token
    /// expiry known not to move with refreshes (not planned for).
    func nextRefresh(for dates: TokenDates, absoluteWindowEnd: Date? = nil) -> Date {
        let lifetime = max(0, dates.accessTokenExpiry.timeIntervalSince(dates.obtainedAt))
        let effectiveLeeway = min(leeway, lifetime / 2)
        let ahead = dates.obtainedAt.addingTimeInterval(lifetime * Self.accessFraction)
        var plan = min(ahead, dates.accessTokenExpiry.addingTimeInterval(-effectiveLeeway))
        if let windowEnd = windowEnd(for: dates), windowEnd != absoluteWindowEnd {
            let window = max(0, windowEnd.timeIntervalSince(dates.obtainedAt))
            plan = min(plan, dates.obtainedAt.addingTimeInterval(window * Self.windowFraction))
        }
        return plan
    }

    /// When the refresh token's idle window ends, if it is known (nil: no refresh token, or
    /// neither the provider nor `keepAlive` says).
    func windowEnd(for dates: TokenDates) -> Date? {
        guard dates.hasRefreshToken else { return nil }
        if let expiry = dates.refreshTokenExpiry { return expiry }
        guard let keepAlive else { return nil }
        let (seconds, attoseconds) = keepAlive.components
        return dates.obtainedAt.addingTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
    }

    /// True when the refresh planned for `dates` is for the refresh token's window, not the
    /// access token's expiry.
    func plansForWindow(_ dates: TokenDates, absoluteWindowEnd: Date? = nil) -> Bool {
        guard let windowEnd = windowEnd(for: dates), windowEnd != absoluteWindowEnd else { return false }
        let withoutWindow = KeepAliveSchedule(leeway: leeway, keepAlive: nil)
        var accessOnly = dates
        accessOnly.hasRefreshToken = false
        return nextRefresh(for: dates, absoluteWindowEnd: absoluteWindowEnd) < withoutWindow.nextRefresh(for: accessOnly)
    }
}

/// The retry delays after transient failures: `first`, doubling, at most `maximum`.
struct Backoff: Sendable {
    let first: Duration
    let maximum: Duration
    private(set) var current: Duration

    init(first: Duration, maximum: Duration) {
        self.first = first
        self.maximum = maximum
        self.current = first
    }

    /// The delay to wait now; the next one doubles it (up to `maximum`).
    mutating func next() -> Duration {
        let delay = current
        current = min(current * 2, maximum)
        return delay
    }

    mutating func reset() { current = first }
}
