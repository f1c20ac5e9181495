// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultSync

/// One answer for a waiter that several parties race to give (an operation and its deadline,
/// a blocked call and its cancellation): the first result wins; later ones are dropped,
/// and whoever delivered one learns whether it won (to give back what it got otherwise).
///
/// A result may come before the waiter is there: it is kept and given at ``start(_:)``.
public final class FirstResult<Success: Sendable, Failure: Error>: Sendable {
    // Inlinable, so the Requester's every request (a deadline race) is specialised and pays
    // no generic dispatch across the module boundary.
    @usableFromInline struct State {
        @usableFromInline var continuation: CheckedContinuation<Result<Success, Failure>, Never>?
        @usableFromInline var pending: Result<Success, Failure>?
        @usableFromInline var finished = false
        @usableFromInline var cleanup: (@Sendable () -> Void)?
        @usableFromInline init() {}
    }
    @usableFromInline let state = Locked(State())

    /// A race nobody has won yet.
    @inlinable public init() {}

    /// The waiter: `continuation` is resumed with the winning result, at once when there is one.
    @inlinable public func start(_ continuation: CheckedContinuation<Result<Success, Failure>, Never>) {
        let early = state.withLock { state -> Result<Success, Failure>? in
            if let pending = state.pending { return pending }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Registers what to do once a result is in (cancel the loser); runs it now if it is.
    @inlinable public func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.finished { return true }
            state.cleanup = cleanup
            return false
        }
        if runNow { cleanup() }
    }

    /// Delivers `result` if no result was delivered before; true when it won.
    @inlinable @discardableResult
    public func finish(_ result: Result<Success, Failure>) -> Bool {
        let (won, continuation, cleanup) = state.withLock {
            state -> (Bool, CheckedContinuation<Result<Success, Failure>, Never>?, (@Sendable () -> Void)?) in
            guard !state.finished else { return (false, nil, nil) }
            state.finished = true
            let continuation = state.continuation
            if continuation == nil { state.pending = result }
            state.continuation = nil
            let cleanup = state.cleanup
            state.cleanup = nil
            return (true, continuation, cleanup)
        }
        continuation?.resume(returning: result)
        cleanup?()
        return won
    }
}
