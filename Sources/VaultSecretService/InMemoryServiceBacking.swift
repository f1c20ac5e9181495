// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore
import VaultSync

/// A ``SecretServiceBacking`` in memory, for the provider's tests and the fuzz harness:
/// contents, a lock state, whether the "key cache" can unlock, and an optional delay on
/// every read and write (a slow disk). Nothing is kept anywhere else.
package final class InMemoryServiceBacking: SecretServiceBacking {
    package struct State {
        package var contents = VaultContents() {
            didSet { revision = .next() }
        }
        /// Changes with every change of ``contents``.
        package var revision = ContentsRevision.next()
        package var locked = false
        package var keyCached = true
        package var delay: Duration = .zero
        /// A delay for the next read only.
        package var slowNext: Duration = .zero
        /// Up to this many milliseconds more on every write, at random (calls that race
        /// finish in any order).
        package var jitter = 0
        package var handlers: [@Sendable () -> Void] = []
        package var reads = 0
    }

    package let state = Locked(State())

    package init(_ contents: VaultContents = VaultContents(), locked: Bool = false, keyCached: Bool = true) {
        state.withLock {
            $0.contents = contents
            $0.locked = locked
            $0.keyCached = keyCached
        }
    }

    package var current: VaultContents { state.withLock { $0.contents } }

    package func setDelay(_ delay: Duration) { state.withLock { $0.delay = delay } }

    /// Makes every write take up to `milliseconds` more, at random.
    package func setJitter(_ milliseconds: Int) { state.withLock { $0.jitter = milliseconds } }

    /// Makes the next read take `delay`.
    package func slowNextRead(_ delay: Duration) { state.withLock { $0.slowNext = delay } }

    package func contents() async throws(VaultError) -> VaultContents {
        try await revisedContents().contents
    }

    package func revisedContents() async throws(VaultError) -> (contents: VaultContents, revision: ContentsRevision) {
        let delay = state.withLock { state in
            defer { state.slowNext = .zero }
            return state.delay + state.slowNext
        }
        if delay > .zero { try? await Task.sleep(for: delay) }
        let locked = state.withLock { $0.locked }
        guard !locked else { throw .locked("the vault is locked") }
        return state.withLock {
            $0.reads += 1
            return ($0.contents, $0.revision)
        }
    }

    package func modify(_ change: @escaping @Sendable (inout VaultContents) throws(VaultError) -> Bool) async throws(VaultError) {
        let (delay, jitter) = state.withLock { ($0.delay, $0.jitter) }
        let wait = delay + .milliseconds(jitter > 0 ? Int.random(in: 0...jitter) : 0)
        if wait > .zero { try? await Task.sleep(for: wait) }
        try state.withLock { (state) throws(VaultError) in
            guard !state.locked else { throw .locked("the vault is locked") }
            var copy = state.contents
            if try change(&copy) { state.contents = copy }
        }
    }

    package var isLocked: Bool { state.withLock { $0.locked } }

    package func unlock() async -> Bool {
        let (changed, locked) = state.withLock { state in
            let was = state.locked
            if state.keyCached { state.locked = false }
            return (was != state.locked, state.locked)
        }
        if changed { notify() }
        return !locked
    }

    package func lock() async {
        let changed = state.withLock { state in
            defer { state.locked = true }
            return !state.locked
        }
        if changed { notify() }
    }

    /// Locks (as `vault lock` does) and says whether the key cache may unlock again.
    package func setLocked(_ locked: Bool, keyCached: Bool) {
        state.withLock {
            $0.locked = locked
            $0.keyCached = keyCached
        }
        notify()
    }

    package func onLockChange(_ handler: @escaping @Sendable () -> Void) { state.withLock { $0.handlers.append(handler) } }

    private func notify() {
        for handler in state.withLock({ $0.handlers }) { handler() }
    }
}
