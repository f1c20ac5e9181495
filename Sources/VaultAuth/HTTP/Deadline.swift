// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// Runs `operation` with a hard deadline: after `timeout` the caller gets `expired()`
/// at once, and the operation is cancelled and left to wind down on its own.
///
/// Unlike a task group, the caller never waits for an operation that ignores
/// cancellation: a server that sends a response head and then stalls (or trickles) in the
/// body cannot hold a command (or a refresh lock) past the deadline. The timer is an
/// event-loop task (`schedule`), not a sleeping Swift task, so the happy path costs one
/// task and no wake-up of a timer.
package func withDeadline<T: Sendable>(
    _ timeout: Duration, schedule: (Duration, @escaping @Sendable () -> Void) -> (@Sendable () -> Void),
    expired: @escaping @Sendable () -> AuthError,
    _ operation: @escaping @Sendable () async throws(AuthError) -> T
) async throws(AuthError) -> T {
    let race = FirstResult<T, AuthError>()
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
