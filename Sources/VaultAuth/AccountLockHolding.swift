// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

extension AccountLocking {
    /// ``AccountLocking/lock(server:account:timeout:)``, failing as an ``AuthError``: a wait
    /// that ran out (or was cancelled) is ``AuthError/lockTimeout(_:)``, any other failure
    /// ``AuthError/store(_:)``.
    func hold(server: String, account: String, timeout: Duration) async throws(AuthError) -> any AccountLockHold {
        do throws(VaultError) {
            return try await lock(server: server, account: account, timeout: timeout)
        } catch {
            throw AuthError(error)
        }
    }
}
