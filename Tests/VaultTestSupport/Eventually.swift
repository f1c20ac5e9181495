// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Polls `condition` every `every` until it holds, at most `limit` (a bound on a hang, not
/// a duration the test relies on), then once more; returns whether it held. It sleeps
/// between polls, so it never holds a thread of the concurrency pool.
@discardableResult
public func eventually(
    limit: Duration = .seconds(20), every: Duration = .milliseconds(20), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: every)
    }
    return try await condition()
}
