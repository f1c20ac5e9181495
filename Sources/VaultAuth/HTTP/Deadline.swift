// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Synchronization

/// Runs `operation` with a hard deadline: after `timeout` the caller gets `expired()`
/// at once, and the operation is cancelled and left to wind down on its own.
///
/// Unlike a task group, the caller never waits for an operation that ignores
/// cancellation: a server that sends a response head and then stalls (or trickles) in the
/// body cannot hold a command (or a refresh lock) past the deadline. The timer is an
/// event-loop task (`schedule`), not a sleeping Swift task, so the happy path costs one
/// task and no wake-up of a timer.
func withDeadline<T: Sendable>(
    _ timeout: Duration, schedule: (Duration, @escaping @Sendable () -> Void) -> (@Sendable () -> Void),
    expired: @escaping @Sendable () -> AuthError,
    _ operation: @escaping @Sendable () async throws(AuthError) -> T
) async throws(AuthError) -> T {
    let race = Race<T>()
    let result = await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, AuthError>, Never>) in
            race.start(continuation)
            let work = Task {
                do throws(AuthError) {
                    race.finish(.success(try await operation()))
                } catch {
                    race.finish(.failure(error))
                }
            }
            let cancelTimer = schedule(timeout) {
                if race.finish(.failure(expired())) { work.cancel() }
            }
            race.onFinish {
                work.cancel(); cancelTimer()
            }
        }
    } onCancel: {
        race.finish(.failure(.network("cancelled")))
    }
    return try result.get()
}

/// The first result wins; later ones are dropped.
private final class Race<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<T, AuthError>, Never>?
        var pending: Result<T, AuthError>?
        var finished = false
        var cleanup: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<Result<T, AuthError>, Never>) {
        let early = state.withLock { state -> Result<T, AuthError>? in
            if let pending = state.pending { return pending }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Registers what to do once a result is in (cancel the loser); runs it now if it is.
    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.finished { return true }
            state.cleanup = cleanup
            return false
        }
        if runNow { cleanup() }
    }

    /// Delivers `result` if no result was delivered before; true when it won.
    @discardableResult
    func finish(_ result: Result<T, AuthError>) -> Bool {
        let (won, continuation, cleanup) = state.withLock {
            state -> (Bool, CheckedContinuation<Result<T, AuthError>, Never>?, (@Sendable () -> Void)?) in
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
