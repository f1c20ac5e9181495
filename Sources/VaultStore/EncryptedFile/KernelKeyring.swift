// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CLinuxKeyring
import FoundationEssentials
import VaultSync

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The Linux kernel's user keyring (keyrings(7)) as a ``DerivedKeyCache``: keys of type
/// `user` in the keyring of the calling user (shared by that user's processes: a shell, a
/// cron job, a service), readable by that user only (possessor and user permissions; none
/// for group or others), expiring by the kernel's own timeout. The key lives in kernel
/// memory only: never on disk, in argv or in the environment.
///
/// Where the kernel refuses key calls (a container's seccomp filter answers EPERM or
/// ENOSYS), every call is a miss and ``unavailability`` says why.
public final class KernelKeyring: DerivedKeyCache {
    private let refused = Locked<String?>(nil)

    /// The calling user's keyring.
    public init() {}

    /// Why key calls fail here (EPERM, ENOSYS or EACCES), or nil when they work; asked of the
    /// kernel with a search for a name no key has, when no call has failed yet.
    public var unavailability: String? {
        if let known = refused.withLock({ $0 }) { return known }
        if vault_keyring_search("vault:availability-probe") < 0 { note(errno) }
        return refused.withLock { $0 }
    }

    /// See ``DerivedKeyCache/load(_:)``: a search in the user keyring, then a read.
    public func load(_ name: String) -> [UInt8]? {
        let id = vault_keyring_search(name)
        guard id >= 0 else {
            note(errno)
            return nil
        }
        var buffer = [UInt8](repeating: 0, count: 64)
        let length = buffer.withUnsafeMutableBytes { vault_keyring_read(Int32(id), $0.baseAddress, $0.count) }
        guard length > 0, length <= buffer.count else {
            if length < 0 { note(errno) }
            return nil
        }
        let key = Array(buffer[0..<length])
        for index in buffer.indices { buffer[index] = 0 }
        return key
    }

    /// See ``DerivedKeyCache/store(_:key:lifetime:)``: added (or replaced), made owner-only, given its timeout.
    /// A key whose permissions or timeout cannot be set is invalidated again, never left as it is.
    @discardableResult
    public func store(_ name: String, key: [UInt8], lifetime: Int) -> Bool {
        let id = key.withUnsafeBytes { vault_keyring_add(name, $0.baseAddress, $0.count) }
        guard id >= 0 else {
            note(errno)
            return false
        }
        guard vault_keyring_set_permissions(Int32(id), vault_keyring_owner_only()) == 0,
            vault_keyring_set_timeout(Int32(id), UInt32(max(1, lifetime))) == 0
        else {
            note(errno)
            _ = vault_keyring_invalidate(Int32(id))
            return false
        }
        return true
    }

    /// See ``DerivedKeyCache/remove(_:)``: invalidated, so no process can read it any more.
    public func remove(_ name: String) {
        let id = vault_keyring_search(name)
        if id >= 0 { _ = vault_keyring_invalidate(Int32(id)) }
    }

    /// See ``DerivedKeyCache/removeAll(prefix:)``: every key of type `user` linked in the user
    /// keyring named `prefix` and 32 hexadecimal digits (the shape of vault's names) is
    /// invalidated; keys of other types, and other names, are left alone.
    @discardableResult
    public func removeAll(prefix: String) -> Int {
        var ids = [Int32](repeating: 0, count: 256)
        var length = ids.withUnsafeMutableBufferPointer { vault_keyring_list($0.baseAddress, $0.count) }
        if length > ids.count * 4 {
            // More keys than room: once more with room for all of them.
            ids = [Int32](repeating: 0, count: length / 4 + 16)
            length = ids.withUnsafeMutableBufferPointer { vault_keyring_list($0.baseAddress, $0.count) }
        }
        guard length > 0 else {
            if length < 0 { note(errno) }
            return 0
        }
        var removed = 0
        for id in ids.prefix(min(ids.count, length / 4)) {
            var buffer = [CChar](repeating: 0, count: 512)
            let needed = buffer.withUnsafeMutableBufferPointer { vault_keyring_describe(id, $0.baseAddress, $0.count) }
            guard needed > 0, needed <= buffer.count else { continue }
            let description = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // "type;uid;gid;perm;name": the name is what follows the fourth semicolon.
            let fields = description.split(separator: ";", maxSplits: 4, omittingEmptySubsequences: false)
            guard fields.count == 5, fields[0] == "user", KeyCachePolicy.isVaultName(fields[4], prefix: prefix) else { continue }
            if vault_keyring_invalidate(id) == 0 { removed += 1 }
        }
        return removed
    }

    private func note(_ code: Int32) {
        guard code == EPERM || code == ENOSYS || code == EACCES else { return }
        let reason = String(cString: strerror(code))
        refused.withLock { $0 = $0 ?? "the kernel refuses key calls (\(reason))" }
    }
}
