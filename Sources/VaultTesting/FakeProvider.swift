// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultAuth
import VaultStore
import VaultSync

/// An ``AuthProvider`` that issues `access-N`/`refresh-N` on a clock, counts its logins and
/// refreshes, and can be made to fail (``fail(with:)``) or to hold a refresh at a gate
/// (``hold(at:)``), so a test sees exactly how often a Requester spends a refresh token.
public final class FakeProvider: AuthProvider {
    private struct State {
        var refreshes = 0
        var logins = 0
        var issued = 0
        var failure: AuthError?
        var gate: Gate?
        var presented: [String] = []
    }

    /// The clock the issued tokens are dated by.
    public let clock: any AuthClock
    /// Seconds an issued access token lives.
    public let lifetime: TimeInterval
    private let state = Locked(State())

    /// A provider whose access tokens live `lifetime` seconds on `clock` (refresh tokens: an hour).
    public init(clock: any AuthClock, lifetime: TimeInterval = 60) {
        self.clock = clock
        self.lifetime = lifetime
    }

    /// "fake".
    public var name: String { "fake" }
    /// How many refreshes were asked for (failed and held ones included).
    public var refreshCount: Int { state.withLock { $0.refreshes } }
    /// How many logins were asked for.
    public var loginCount: Int { state.withLock { $0.logins } }
    /// The refresh tokens presented to `refresh`, in order.
    public var presentedRefreshTokens: [String] { state.withLock { $0.presented } }
    /// The access token issued last ("access-0" is the initial one, see ``initialTokens()``).
    public var currentAccessToken: String { state.withLock { "access-\($0.issued)" } }

    /// Makes every later refresh throw `error` (nil: succeed again).
    public func fail(with error: AuthError?) { state.withLock { $0.failure = error } }
    /// Makes every later refresh wait at `gate` (at most its limit) before answering (nil: no wait).
    public func hold(at gate: Gate?) { state.withLock { $0.gate = gate } }

    /// The tokens of the first login: `access-0`, obtained now, `lifetime` long.
    public func initialTokens() -> TokenSet { tokens(number: 0) }

    private func tokens(number: Int) -> TokenSet {
        let now = clock.now()
        return TokenSet(
            accessToken: Secret("access-\(number)"), accessTokenExpiry: now.addingTimeInterval(lifetime),
            refreshToken: Secret("refresh-\(number)"), refreshTokenExpiry: now.addingTimeInterval(3600),
            obtainedAt: now)
    }

    /// Issues the next tokens; never fails.
    public func login(account: String, password: Secret?) async throws(AuthError) -> TokenSet {
        let number = state.withLock {
            $0.logins += 1
            $0.issued += 1
            return $0.issued
        }
        return tokens(number: number)
    }

    /// Counts the refresh, waits at the gate if one is set, throws the failure if one is
    /// set, else issues the next tokens.
    public func refresh(_ old: TokenSet) async throws(AuthError) -> TokenSet {
        let (gate, failure) = state.withLock {
            $0.refreshes += 1
            $0.presented.append(old.refreshToken?.utf8String ?? "")
            return ($0.gate, $0.failure)
        }
        if let gate { await gate.wait() }
        if let failure { throw failure }
        let number = state.withLock {
            $0.issued += 1
            return $0.issued
        }
        return tokens(number: number)
    }
}
