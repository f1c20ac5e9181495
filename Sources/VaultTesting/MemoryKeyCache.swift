// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore
import VaultSync

/// A ``DerivedKeyCache`` in memory, standing in for the kernel keyring: the test sees what
/// a store keeps and removes (``names``), plants keys (``put(_:_:)``,
/// ``replaceAll(with:)``), and can make it refuse everything, as a kernel whose key calls
/// a seccomp filter blocks (`refusing: true`).
public final class MemoryKeyCache: DerivedKeyCache {
    private let entries = Locked([String: [UInt8]]())
    private let refusing: Bool

    /// An empty cache; a `refusing` one loads nothing and refuses every store.
    public init(refusing: Bool = false) { self.refusing = refusing }

    /// The names of the keys kept (in no order).
    public var names: [String] { entries.withLock { Array($0.keys) } }
    /// How many keys are kept.
    public var count: Int { entries.withLock { $0.count } }
    /// Keeps `key` under `name`, even in a refusing cache (a key another process left).
    public func put(_ name: String, _ key: [UInt8]) { entries.withLock { $0[name] = key } }
    /// Replaces every kept key by `key` (a key that no longer fits the vault).
    public func replaceAll(with key: [UInt8]) { entries.withLock { entries in for name in entries.keys { entries[name] = key } } }

    /// The key under `name`; nil when none, or when refusing.
    public func load(_ name: String) -> [UInt8]? { refusing ? nil : entries.withLock { $0[name] } }
    /// Keeps `key` under `name` (the lifetime is ignored); false when refusing.
    public func store(_ name: String, key: [UInt8], lifetime: Int) -> Bool {
        guard !refusing else { return false }
        entries.withLock { $0[name] = key }
        return true
    }
    /// Forgets the key under `name`.
    public func remove(_ name: String) { entries.withLock { $0[name] = nil } }
    /// Forgets the keys with vault's names under `prefix` (``KeyCachePolicy/isVaultName(_:prefix:)``).
    public func removeAll(prefix: String) -> Int {
        entries.withLock { entries in
            let names = entries.keys.filter { KeyCachePolicy.isVaultName($0, prefix: prefix) }
            for name in names { entries[name] = nil }
            return names.count
        }
    }
    /// "refused by the test" when refusing, else nil.
    public var unavailability: String? { refusing ? "refused by the test" : nil }
}
