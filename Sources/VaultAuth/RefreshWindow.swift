// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Bounds the refreshes that rejected tokens cause, as Alamofire's
/// `AuthenticationInterceptor.RefreshWindow` does: at most `maximumAttempts` in any
/// `interval` (monotonic clock). A resource that answers 401 to every new token then costs
/// a few refreshes, not one per request, and the requests fail with
/// ``AuthError/excessiveRefresh(_:)``. (Refreshes at expiry are not counted: token
/// lifetimes bound them already.)
public struct RefreshWindow: Sendable, Equatable {
    /// The span in which refreshes are counted (default 60 s).
    public var interval: Duration
    /// How many refreshes rejected tokens may cause within `interval` (default 3, at least 1).
    public var maximumAttempts: Int

    /// A window of `maximumAttempts` refreshes (at least 1) per `interval`.
    public init(interval: Duration = .seconds(60), maximumAttempts: Int = 3) {
        self.interval = interval
        self.maximumAttempts = max(1, maximumAttempts)
    }
}

/// The refreshes rejected tokens caused, counted against a ``RefreshWindow``.
struct RefreshAttempts {
    let window: RefreshWindow
    private var attempts: [ContinuousClock.Instant] = []

    init(_ window: RefreshWindow) { self.window = window }

    /// Throws when `window.maximumAttempts` refreshes were recorded within the last `window.interval`.
    mutating func check(at now: ContinuousClock.Instant) throws(AuthError) {
        attempts.removeAll { now - $0 >= window.interval }
        guard attempts.count < window.maximumAttempts else {
            throw .excessiveRefresh(
                "the server rejected \(window.maximumAttempts) new access tokens within \(window.interval); not refreshing again for now "
                    + "(is the 401 from another service than the account's?)")
        }
    }

    /// Records a refresh (one that issued a new token) at `now`.
    mutating func record(at now: ContinuousClock.Instant) {
        attempts.append(now)
    }
}
