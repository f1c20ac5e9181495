// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultAuth
import VaultStore
import VaultTestSupport

@testable import VaultAgent

/// When the agent plans its refreshes ahead (pure arithmetic, no clock).
@Suite("Keep-alive schedule", .offThePool)
struct KeepAliveScheduleTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func dates(lifetime: TimeInterval, refreshWindow: TimeInterval? = nil, refreshToken: Bool = true) -> TokenDates {
        TokenDates(
            TokenSet(
                accessToken: Secret("a"), accessTokenExpiry: start.addingTimeInterval(lifetime),
                refreshToken: refreshToken ? Secret("r") : nil, refreshTokenExpiry: refreshWindow.map { start.addingTimeInterval($0) },
                obtainedAt: start))
    }

    @Test("ahead of the access token: at 75 % of its lifetime, never later than the expiry less the leeway")
    func aheadOfTheAccessToken() {
        let schedule = KeepAliveSchedule(leeway: 10, keepAlive: nil)
        #expect(schedule.nextRefresh(for: dates(lifetime: 3600)) == start.addingTimeInterval(2700))
        #expect(schedule.nextRefresh(for: dates(lifetime: 30)) == start.addingTimeInterval(20), "expiry less the 10 s leeway")
        #expect(schedule.nextRefresh(for: dates(lifetime: 2)) == start.addingTimeInterval(1), "the leeway is at most half the lifetime")
    }

    @Test("ahead of the refresh token's window: at two thirds of it, from the provider's expiry or --keep-alive")
    func aheadOfTheRefreshWindow() {
        let schedule = KeepAliveSchedule(leeway: 10, keepAlive: .seconds(1800))
        #expect(schedule.nextRefresh(for: dates(lifetime: 3600, refreshWindow: 600)) == start.addingTimeInterval(400))
        #expect(schedule.nextRefresh(for: dates(lifetime: 3600)) == start.addingTimeInterval(1200), "keep-alive 30 min")
        #expect(schedule.nextRefresh(for: dates(lifetime: 3600, refreshToken: false)) == start.addingTimeInterval(2700))
        #expect(schedule.plansForWindow(dates(lifetime: 3600, refreshWindow: 600)))
        #expect(!schedule.plansForWindow(dates(lifetime: 60, refreshWindow: 600)))
    }

    @Test("a window known not to move with refreshes is not planned for")
    func absoluteWindowIgnored() {
        let schedule = KeepAliveSchedule(leeway: 10, keepAlive: nil)
        let end = start.addingTimeInterval(600)
        #expect(schedule.nextRefresh(for: dates(lifetime: 3600, refreshWindow: 600), absoluteWindowEnd: end) == start.addingTimeInterval(2700))
    }

    @Test("retries back off from 2 s, doubling, to at most 60 s")
    func backoff() {
        var backoff = Backoff(first: .seconds(2), maximum: .seconds(60))
        let delays = (0..<7).map { _ in backoff.next() }
        #expect(delays == [.seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(32), .seconds(60), .seconds(60)])
        backoff.reset()
        #expect(backoff.next() == .seconds(2))
    }
}
