// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import NIOCore
import NIOPosix
import Testing
import VaultSync
import VaultTestSupport

@testable import VaultAuth

/// The transport's one-timer deadlines, on a real event loop: each fires at its time and
/// never early, a cancelled one never, and an earlier one added later is not held up by a
/// later one already set.
@Suite struct DeadlineTimerTests {
    let timer = DeadlineTimer(loop: MultiThreadedEventLoopGroup.singleton.next())

    /// Milliseconds from now until each of `delays` fires (nil: did not fire within `wait`).
    func firings(_ delays: [Int], cancelling cancelled: Set<Int> = [], wait: Duration = .seconds(2)) async throws -> [Int: Double] {
        let clock = ContinuousClock()
        let start = clock.now
        let fired = Locked<[Int: Double]>([:])
        var cancels: [Int: @Sendable () -> Void] = [:]
        for (index, delay) in delays.enumerated() {
            cancels[index] = timer.schedule(after: .milliseconds(delay)) {
                let elapsed = clock.now - start
                fired.withLock { $0[index] = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000 }
            }
        }
        for index in cancelled { cancels[index]?() }
        try await Task.sleep(for: wait)
        return fired.withLock { $0 }
    }

    @Test func eachDeadlineFiresAtItsTimeAndNotBefore() async throws {
        let fired = try await firings([300, 100, 200, 50])
        #expect(fired.count == 4, "\(fired)")
        for (index, delay) in [300, 100, 200, 50].enumerated() {
            let at = try #require(fired[index])
            #expect(at >= Double(delay), "deadline \(delay) ms fired early, at \(at) ms")
            #expect(at < Double(delay) + Sanitizer.scaled(250.0), "deadline \(delay) ms fired late, at \(at) ms")
        }
    }

    @Test func aCancelledDeadlineNeverFires() async throws {
        let fired = try await firings([50, 100, 150], cancelling: [0, 2], wait: .milliseconds(600))
        #expect(fired[0] == nil && fired[2] == nil, "\(fired)")
        #expect(fired[1] != nil, "the one not cancelled fires: \(fired)")
    }

    @Test func manyDeadlinesAllFireOnce() async throws {
        let count = Locked(0)
        for index in 0..<500 {
            _ = timer.schedule(after: .milliseconds(20 + index % 50)) { count.withLock { $0 += 1 } }
        }
        try await Task.sleep(for: .milliseconds(800))
        #expect(count.withLock { $0 } == 500)
    }
}
