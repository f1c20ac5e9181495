// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultTestSupport

@testable import VaultAgent
@testable import VaultSync

/// `OneShotTimer`, the timer the agent's waits are cut short with: it fires once, never
/// after a cancel, and a cancel lets go of what its action holds at once, not when the
/// time would have come (what a cancelled `Task.sleep` does, swiftlang/swift#60441).
/// The time bounds here only bound a hang.
@Suite(.offThePool) struct OneShotTimerTests {
    /// Counts the calls of a timer's action.
    final class Calls: Sendable {
        let count = Locked(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    /// Polls `condition` every 10 ms for at most `limit`.
    static func becomes(within limit: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func itFiresOnceAfterItsTime() async {
        let calls = Calls()
        let started = ContinuousClock.now
        let timer = OneShotTimer(after: .milliseconds(50)) { calls.add() }
        #expect(await Self.becomes { calls.value == 1 })
        #expect(ContinuousClock.now - started >= .milliseconds(50))
        try? await Task.sleep(for: .milliseconds(200))
        #expect(calls.value == 1, "it fired again")
        timer.cancel()
        timer.cancel()
    }

    @Test func aCancelledTimerNeverFires() async {
        let calls = Calls()
        let timer = OneShotTimer(after: .milliseconds(50)) { calls.add() }
        timer.cancel()
        try? await Task.sleep(for: .milliseconds(300))
        #expect(calls.value == 0)
        // A timer dropped without a cancel is cancelled too.
        do { _ = OneShotTimer(after: .milliseconds(50)) { calls.add() } }
        try? await Task.sleep(for: .milliseconds(300))
        #expect(calls.value == 0)
    }

    @Test func aCancelLetsGoOfTheActionAtOnce() async {
        weak var held: Calls?
        let timer: OneShotTimer
        do {
            let calls = Calls()
            held = calls
            timer = OneShotTimer(after: .seconds(3600)) { calls.add() }
        }
        #expect(held != nil, "the timer holds its action")
        timer.cancel()
        #expect(await Self.becomes { held == nil }, "a cancelled timer still holds its action an hour ahead")
    }

    @Test func durationsPastDispatchsRangeNeverFire() {
        #expect(OneShotTimer.interval(.seconds(Int64.max)) == .never)
        #expect(OneShotTimer.interval(.seconds(-5)) == .nanoseconds(0))
        #expect(OneShotTimer.interval(.milliseconds(1500)) == .nanoseconds(1_500_000_000))
    }

    @Test func aWokenWaitReturnsAndATimedOneReturnsAtItsTime() async {
        let wakeup = Wakeup()
        let woken = Task { await wakeup.wait(for: .seconds(3600)) }
        try? await Task.sleep(for: .milliseconds(50))
        wakeup.wake()
        // Bounded: a wake that were lost would leave the wait for an hour.
        let returned = Calls()
        Task {
            await woken.value
            returned.add()
        }
        #expect(await Self.becomes { returned.value == 1 }, "the woken wait did not return")

        let started = ContinuousClock.now
        await wakeup.wait(for: .milliseconds(100))
        #expect(ContinuousClock.now - started >= .milliseconds(100))
    }

    /// The timer's monotonic clock stands still during a suspend: no wait lasts longer than
    /// `longestWait`, so a refresh due during a suspend is made soon after the resume.
    @Test func noWaitOutlastsTheLongestWait() async {
        let wakeup = Wakeup(longestWait: .milliseconds(200))
        let returned = Calls()
        let started = ContinuousClock.now
        Task {
            await wakeup.wait(for: .seconds(3600))
            returned.add()
        }
        #expect(await Self.becomes { returned.value == 1 }, "a wait of an hour was not cut to the longest wait")
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        #expect(Wakeup().longestWait == .seconds(60))
    }
}
