// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

/// Runs blocking store work (a D-Bus round trip, a key derivation, a file write, a
/// `flock`) on a thread of its own, so it never blocks the Swift concurrency pool. (On
/// Linux the pool *is* libdispatch's global queue, so `DispatchQueue.global()` would not
/// do: blocking it starves every task, an in-process server's handlers included.)
func offload<T: Sendable>(_ body: @escaping @Sendable () throws(VaultError) -> T) async throws(AuthError) -> T {
    let result: Result<T, VaultError> = await withCheckedContinuation { continuation in
        let thread = Thread {
            do throws(VaultError) {
                continuation.resume(returning: .success(try body()))
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        thread.name = "vault-store"
        thread.start()
    }
    switch result {
    case .success(let value): return value
    case .failure(let error): throw .store(error)
    }
}
