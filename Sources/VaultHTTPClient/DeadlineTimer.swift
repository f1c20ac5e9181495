// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import NIOCore
import VaultAuth
import VaultSync

/// Many deadlines on one event-loop timer: what `withDeadline` schedules for every
/// request of a transport.
///
/// Scheduling an event-loop task from outside the loop wakes the loop's thread, and so
/// does cancelling it: two cross-thread hops per request. Here a deadline is an entry in
/// a table, and its cancellation removes the entry; the one timer is (re)scheduled only
/// when a deadline comes earlier than the one it is set for (with one timeout for every
/// request, the first of a burst), and when it fires it runs what is due and sets itself
/// for the earliest deadline left. A deadline fires at its time, as a task of its own
/// would, never early.
final class DeadlineTimer: Sendable {
    private struct Entry {
        var deadline: NIODeadline
        var fire: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var lastIdentifier: UInt64 = 0
        /// When the pending timer fires, if one is pending.
        var armedFor: NIODeadline?
        /// Counts the timers set, so a superseded one does nothing when it fires.
        var generation: UInt64 = 0
    }

    private let loop: any EventLoop
    private let state = Locked(State())

    init(loop: any EventLoop) { self.loop = loop }

    /// Runs `fire` once `delay` has passed, unless the returned cancel closure runs first.
    func schedule(after delay: Duration, _ fire: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let deadline = NIODeadline.now() + TimeAmount(delay)
        let (identifier, arm) = state.withLock { state -> (UInt64, UInt64?) in
            state.lastIdentifier += 1
            state.entries[state.lastIdentifier] = Entry(deadline: deadline, fire: fire)
            if let armed = state.armedFor, armed <= deadline { return (state.lastIdentifier, nil) }
            state.armedFor = deadline
            state.generation += 1
            return (state.lastIdentifier, state.generation)
        }
        if let arm { set(for: deadline, generation: arm) }
        return { [self] in _ = state.withLock { $0.entries.removeValue(forKey: identifier) } }
    }

    private func set(for deadline: NIODeadline, generation: UInt64) {
        loop.scheduleTask(deadline: deadline) { [self] in expire(generation: generation) }
    }

    /// Runs every entry that is due, then sets the timer for the earliest one left.
    private func expire(generation: UInt64) {
        let now = NIODeadline.now()
        let (due, next) = state.withLock { state -> ([@Sendable () -> Void], (NIODeadline, UInt64)?) in
            guard state.generation == generation else { return ([], nil) }
            var due: [@Sendable () -> Void] = []
            var earliest: NIODeadline?
            for (identifier, entry) in state.entries {
                if entry.deadline <= now {
                    due.append(entry.fire)
                    state.entries.removeValue(forKey: identifier)
                } else if earliest.map({ entry.deadline < $0 }) ?? true {
                    earliest = entry.deadline
                }
            }
            state.armedFor = earliest
            guard let earliest else { return (due, nil) }
            state.generation += 1
            return (due, (earliest, state.generation))
        }
        for fire in due { fire() }
        if let (deadline, generation) = next { set(for: deadline, generation: generation) }
    }
}
