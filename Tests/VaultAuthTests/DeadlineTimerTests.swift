// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import NIOCore
import NIOPosix
import Testing
import VaultSync
import VaultTestSupport

@testable import VaultAuth
@testable import VaultHTTPClient

/// The transport's one-timer deadlines, on a real event loop: each fires at its time and
/// never early, a cancelled one never, and an earlier one added later is not held up by a
/// later one already set.
///
/// How late a deadline may fire is measured against the event loop's own timer
/// (`scheduleTask`) for the same delay, set at the same moment: on a loaded machine both
/// fire late together, and only a deadline held up by the timer's own logic fires later
/// than the loop's.
@Suite(.offThePool) struct DeadlineTimerTests {
    let loop = MultiThreadedEventLoopGroup.singleton.next()
    var timer: DeadlineTimer { DeadlineTimer(loop: loop) }

    /// When each of `delays` fired and when the loop's own timer for the same delay did, in
    /// milliseconds from now (nil: did not fire): read once every deadline not in `cancelled`
    /// and every loop timer has fired, and a loop round trip later. Waits at most `bound`.
    func firings(
        _ delays: [Int], cancelling cancelled: Set<Int> = [], bound: Duration = .seconds(20)
    ) async throws
        -> (ours: [Int: Double], loops: [Int: Double])
    {
        let timer = timer
        let clock = ContinuousClock()
        let start = clock.now
        let ours = Locked<[Int: Double]>([:])
        let loops = Locked<[Int: Double]>([:])
        @Sendable func milliseconds() -> Double {
            let elapsed = clock.now - start
            return Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        }
        var cancels: [Int: @Sendable () -> Void] = [:]
        for (index, delay) in delays.enumerated() {
            cancels[index] = timer.schedule(after: .milliseconds(delay)) { ours.withLock { $0[index] = milliseconds() } }
            loop.scheduleTask(in: .milliseconds(Int64(delay))) { loops.withLock { $0[index] = milliseconds() } }
        }
        for index in cancelled { cancels[index]?() }
        let expected = delays.count - cancelled.count
        while ours.withLock({ $0.count }) < expected || loops.withLock({ $0.count }) < delays.count {
            if clock.now - start > bound { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        // A loop round trip later, so that a cancelled deadline that wrongly fires has fired.
        try await loop.scheduleTask(in: .milliseconds(100)) {}.futureResult.get()
        return (ours.withLock { $0 }, loops.withLock { $0 })
    }

    @Test func eachDeadlineFiresAtItsTimeAndNotBefore() async throws {
        let delays = [300, 100, 200, 50]
        let (ours, loops) = try await firings(delays)
        #expect(ours.count == 4, "\(ours)")
        for (index, delay) in delays.enumerated() {
            let at = try #require(ours[index])
            let loopAt = try #require(loops[index])
            #expect(at >= Double(delay), "deadline \(delay) ms fired early, at \(at) ms")
            #expect(at < loopAt + Sanitizer.scaled(250.0), "deadline \(delay) ms fired at \(at) ms, the loop's own timer at \(loopAt) ms")
            // Not held up by a later deadline: it fires before the loop's own timer for the
            // next longer delay (even on a stalled loop, which runs due tasks in order).
            if let later = delays.enumerated().filter({ $0.element > delay }).min(by: { $0.element < $1.element }) {
                let laterLoopAt = try #require(loops[later.offset])
                #expect(at < laterLoopAt, "deadline \(delay) ms fired at \(at) ms, after the loop's \(later.element)-ms timer (\(laterLoopAt) ms)")
            }
        }
    }

    @Test func aCancelledDeadlineNeverFires() async throws {
        let (ours, loops) = try await firings([50, 100, 150], cancelling: [0, 2])
        #expect(loops.count == 3, "the loop's own timers all fired: \(loops)")
        #expect(ours[0] == nil && ours[2] == nil, "\(ours)")
        #expect(ours[1] != nil, "the one not cancelled fires: \(ours)")
    }

    @Test func manyDeadlinesAllFireOnce() async throws {
        let timer = timer
        let count = Locked(0)
        for index in 0..<500 {
            _ = timer.schedule(after: .milliseconds(20 + index % 50)) { count.withLock { $0 += 1 } }
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        while count.withLock({ $0 }) < 500 && clock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        // Past the last deadline (70 ms) and a whole loop round trip later, none fires twice.
        try await loop.scheduleTask(in: .milliseconds(100)) {}.futureResult.get()
        #expect(count.withLock { $0 } == 500)
    }
}
