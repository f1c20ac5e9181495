// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

extension Result where Failure == AuthError {
    /// What `body` returned or threw, awaited: for work whose outcome is kept (a task's
    /// value shared by its waiters) or settled after a step that must run either way.
    static func awaiting(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws(AuthError) -> Success
    ) async -> Result<Success, AuthError> {
        do throws(AuthError) { return .success(try await body()) } catch { return .failure(error) }
    }
}

/// Runs `body`, then releases `hold` (when there is one) whether `body` returned or threw,
/// and returns or throws what `body` did: the one place a held account lock is let go.
func releasing<T>(
    _ hold: (any AccountLockHold)?, isolation: isolated (any Actor)? = #isolation, after body: () async throws(AuthError) -> T
) async throws(AuthError) -> T {
    let result = await Result.awaiting(body)
    await hold?.release()
    return try result.get()
}
