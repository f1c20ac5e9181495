// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Dispatch

/// A one-shot timer that ``cancel()`` frees at once, with what its action holds.
///
/// Why not a task that sleeps: a cancelled `Task.sleep` keeps its timer and its task's
/// memory until the time it was to sleep has passed (swiftlang/swift#60441). `vault agent`
/// waits up to ¾ of a token's lifetime for a refresh and is woken early by every lock,
/// unlock and new token: each wake left about 300 bytes behind for that long (issue 37's
/// benchmark: the agent grew 12.6 KiB per lock and unlock). A Dispatch timer source is
/// gone once cancelled.
public final class OneShotTimer: Sendable {
    /// Dispatch sources may be scheduled, resumed and cancelled from any thread; only
    /// `cancel()` is called after `init`.
    private nonisolated(unsafe) let source: any DispatchSourceTimer

    /// Runs `action` once on `queue` after `duration` (a negative one: at once), unless
    /// ``cancel()`` comes first. A duration past what Dispatch can count never fires.
    public init(after duration: Duration, queue: DispatchQueue = .global(), _ action: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: queue)
        source.setEventHandler(handler: action)
        source.schedule(deadline: .now() + Self.interval(duration), repeating: .never)
        source.activate()
    }

    /// Stops the timer and releases its action; harmless after it fired or a second time.
    public func cancel() { source.cancel() }

    deinit { source.cancel() }

    /// `duration` in nanoseconds, clamped to what Dispatch counts (`.never` past it).
    static func interval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return .nanoseconds(0) }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflow, !overflowAgain, let nanoseconds = Int(exactly: total) else { return .never }
        return .nanoseconds(nanoseconds)
    }
}
