// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultSync

/// A sleep that another task can cut short: a keeper waits on it until its next planned
/// refresh, and is woken early when something changed (new tokens, a lock, an unlock, a
/// stop). A wake with nobody waiting is kept for the next wait, so none is lost; a waiter
/// must therefore take every return as "look again", never as "the time has come".
final class Wakeup: Sendable {
    private struct State {
        var pending = false
        var waiter: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?
        var nextID: UInt64 = 0
        /// A wait whose timer fired before it began to wait.
        var fired: UInt64?
    }

    private let state = Locked(State())
    /// The longest one wait lasts: its timer counts on the monotonic clock, which stands
    /// still while the machine is suspended, so a wait that was to end during a suspend
    /// ends at most this long after the resume (attack review 50).
    let longestWait: Duration

    init(longestWait: Duration = .seconds(60)) {
        self.longestWait = longestWait
    }

    /// Wakes the current waiter, or the next one.
    func wake() {
        let continuation: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        continuation?.resume()
    }

    /// Returns after `duration` (at most ``longestWait``), at a wake, or when the task is
    /// cancelled, whichever is first.
    func wait(for duration: Duration) async {
        let duration = min(duration, longestWait)
        guard duration > .zero, !Task.isCancelled else { return }
        let id: UInt64? = state.withLock { state in
            if state.pending {
                state.pending = false
                return nil
            }
            state.nextID &+= 1
            return state.nextID
        }
        guard let id else { return }
        // Not a task that sleeps: a cancelled sleep holds its memory until its end (``OneShotTimer``).
        let timer = OneShotTimer(after: duration) { self.fire(id) }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: Bool = state.withLock { state in
                    if state.pending || state.fired == id || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = (id, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            self.fire(id)
        }
        timer.cancel()
    }

    /// Ends the wait `id` if it is still the one waiting (a late timer wakes nobody else).
    private func fire(_ id: UInt64) {
        let continuation: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard let waiter = state.waiter, waiter.id == id else {
                if state.waiter == nil { state.fired = id }
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        continuation?.resume()
    }
}
