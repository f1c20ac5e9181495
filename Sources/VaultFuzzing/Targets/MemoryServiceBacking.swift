// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultSecretService
import VaultStore
import VaultSync

/// A ``SecretServiceBacking`` in memory for the `secret-service-call` target: contents, the
/// lock state and whether the "key cache" can unlock. Never waits, never fails otherwise.
final class MemoryServiceBacking: SecretServiceBacking {
    struct State {
        var contents: VaultContents
        var locked = false
        var keyCached = true
    }

    let state: Locked<State>

    init(_ contents: VaultContents) { state = Locked(State(contents: contents)) }

    var current: VaultContents { state.withLock { $0.contents } }

    func contents() async throws(VaultError) -> VaultContents {
        try state.withLock { (state) throws(VaultError) in
            guard !state.locked else { throw .locked("the vault is locked") }
            return state.contents
        }
    }

    func modify(_ change: @escaping @Sendable (inout VaultContents) throws(VaultError) -> Bool) async throws(VaultError) {
        try state.withLock { (state) throws(VaultError) in
            guard !state.locked else { throw .locked("the vault is locked") }
            var copy = state.contents
            if try change(&copy) { state.contents = copy }
        }
    }

    var isLocked: Bool { state.withLock { $0.locked } }

    func unlock() async -> Bool {
        state.withLock { state in
            if state.keyCached { state.locked = false }
            return !state.locked
        }
    }

    func lock() async { state.withLock { $0.locked = true } }

    /// The harness emits no signals: nobody listens.
    func onLockChange(_ handler: @escaping @Sendable () -> Void) {}
}
