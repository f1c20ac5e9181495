// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore
import VaultSync

/// A ``SecureStore`` around another (an ``InMemoryStore`` by default) that misbehaves where
/// the test says: a refused write (a full disk, a conflict with another machine), a read
/// that stalls after it read (a process stopped at the worst moment), while every other call
/// goes through unchanged.
///
/// Each ``Fault`` names the operation and, optionally, the item kind and the call number it
/// hits; ``faults`` may be replaced at any time (a store that fails, then recovers):
///
///     let store = FaultyStore()
///     store.faults = [.init(.save, kind: .tokens, .fail(.backendUnavailable("disk full (test)")))]
///     ...
///     store.faults = []
public final class FaultyStore: SecureStore {
    /// The four calls of a ``SecureStore``.
    public enum Operation: Sendable, Hashable, CaseIterable {
        case load, save, remove, list
    }

    /// What a fault does to a call it hits.
    public enum Effect: Sendable {
        /// The call throws this error before reaching the store: nothing is read or written.
        case fail(VaultError)
        /// The call reaches the store, then this runs (blocking the caller, as a stalled
        /// process), then the call returns what the store answered.
        case afterwards(@Sendable () -> Void)
    }

    /// Which calls a fault hits, and what it does to them.
    public struct Fault: Sendable {
        /// The operation hit.
        public var operation: Operation
        /// The kind of item hit (nil: any; a `list` has no kind, so only a nil kind hits it).
        public var kind: ItemKind?
        /// The call hit, counting from 1 the calls of this operation and kind (nil: every one).
        public var call: Int?
        /// What it does.
        public var effect: Effect

        /// A fault on `operation` (of `kind`, only its call number `call`) doing `effect`.
        public init(_ operation: Operation, kind: ItemKind? = nil, call: Int? = nil, _ effect: Effect) {
            self.operation = operation
            self.kind = kind
            self.call = call
            self.effect = effect
        }

        func matches(_ operation: Operation, _ kind: ItemKind?) -> Bool {
            self.operation == operation && (self.kind == nil || self.kind == kind)
        }
    }

    private struct State {
        var faults: [Fault] = []
        /// Per fault (same index), how many calls it matched.
        var matched: [Int] = []
        var calls: [Operation: Int] = [:]
        var triggered = 0
    }

    /// The store the calls go to.
    public let base: any SecureStore
    private let state = Locked(State())

    /// A store around `base` with the given faults.
    public init(_ base: any SecureStore = InMemoryStore(), faults: [Fault] = []) {
        self.base = base
        self.faults = faults
    }

    /// The faults in force; setting them starts their call numbers from 1 again.
    public var faults: [Fault] {
        get { state.withLock { $0.faults } }
        set {
            state.withLock {
                $0.faults = newValue
                $0.matched = Array(repeating: 0, count: newValue.count)
            }
        }
    }

    /// How many calls of `operation` were made (those a fault hit included).
    public func calls(_ operation: Operation) -> Int { state.withLock { $0.calls[operation, default: 0] } }

    /// How many times a fault took effect.
    public var triggered: Int { state.withLock { $0.triggered } }

    /// The base store's name.
    public var backendName: String { base.backendName }

    public func load(_ key: CredentialKey) throws(VaultError) -> Credential? {
        try perform(.load, key.kind) { () throws(VaultError) in try base.load(key) }
    }

    public func save(_ credential: Credential) throws(VaultError) {
        try perform(.save, credential.key.kind) { () throws(VaultError) in try base.save(credential) }
    }

    public func remove(_ key: CredentialKey) throws(VaultError) {
        try perform(.remove, key.kind) { () throws(VaultError) in try base.remove(key) }
    }

    public func list(server: String?) throws(VaultError) -> [CredentialInfo] {
        try perform(.list, nil) { () throws(VaultError) in try base.list(server: server) }
    }

    /// Counts the call, finds the first fault that hits it, and runs `body` under it.
    private func perform<T>(_ operation: Operation, _ kind: ItemKind?, _ body: () throws(VaultError) -> T) throws(VaultError) -> T {
        let effect: Effect? = state.withLock { state in
            state.calls[operation, default: 0] += 1
            var hit: Effect?
            for index in state.faults.indices where state.faults[index].matches(operation, kind) {
                state.matched[index] += 1
                let fault = state.faults[index]
                if hit == nil, fault.call == nil || fault.call == state.matched[index] { hit = fault.effect }
            }
            if hit != nil { state.triggered += 1 }
            return hit
        }
        switch effect {
        case .fail(let error): throw error
        case .afterwards(let run):
            let result = try body()
            run()
            return result
        case nil: return try body()
        }
    }
}
