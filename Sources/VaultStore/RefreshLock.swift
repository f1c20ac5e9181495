// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An account's refresh lock: the cross-process lock (a ``FileLock`` on a lock file, one
/// per account) that makes a refresh or a re-login single-flight across every process
/// sharing one store. The holder re-reads the store under it, so a second process adopts
/// the first one's rotated tokens instead of spending the old refresh token again.
public enum RefreshLock {
    /// Where an account's refresh lock lives.
    public enum Placement: Sendable {
        /// The store's own lock when it brings one (``AccountLockingStore``: a fleet's
        /// etcd), else a lock file in the store's own lock directory when it has one
        /// (beside the vault file), else in the user's (`perUserDirectory`). The default: every process of the user shares
        /// one refresh, whatever session it runs in.
        case automatic
        /// A directory of the caller's choosing (created 0700 when missing).
        case directory(String)
        /// No cross-process lock: single flight within this process only.
        case inProcessOnly
        /// A lock of the caller's own, for processes that share a store but not a machine.
        case custom(any AccountLocking)

        /// The lock file directory for an account kept in `store`, or nil when no lock
        /// file is used (in-process only, or a custom lock).
        public func directory(for store: any SecureStore) -> String? {
            switch self {
            case .automatic: store.lockDirectory ?? RefreshLock.perUserDirectory()
            case .directory(let path): path
            case .inProcessOnly, .custom: nil
            }
        }

        /// The lock for accounts kept in `store`, or nil for in-process single flight only.
        public func locking(for store: any SecureStore) -> (any AccountLocking)? {
            if case .custom(let locking) = self { return locking }
            if case .automatic = self, let shared = store as? any AccountLockingStore { return shared.accountLocking }
            return directory(for: store).map { FileAccountLocking(directory: $0) }
        }
    }

    /// The lock file for an account, in `directory` (created 0700 when missing).
    public static func path(directory: String, server: String, account: String) -> String {
        var hasher = FNV1a()
        hasher.add(server)
        hasher.add("\u{0}")
        hasher.add(account)
        return "\(directory)/refresh-\(String(hasher.value, radix: 16)).lock"
    }

    /// The user's lock directory: `HOME/.cache/vault/locks` with HOME taken from the user's
    /// account (the password database), not from the session (`environment`'s `HOME` only
    /// when the account has none), so a desktop shell, a cron job and a systemd service of
    /// one user share it. (A program that wants another directory says so with
    /// ``Placement/directory(_:)``: the `vault` command's `VAULT_LOCK_DIR`.)
    ///
    /// A home counts only when it is a directory of the user that the group and others
    /// cannot write to (decided from the directory, not its name: `HOME=/var/tmp` or
    /// `/tmp//` is no home), since another user who can write there could make
    /// `.cache/vault` first and later swap `locks` for a link. With no such home the
    /// directory is `/tmp/vault-locks-UID`: one directory right under the sticky `/tmp`,
    /// which the lock refuses when another user made it first (a user without a home
    /// of their own should set `VAULT_LOCK_DIR`).
    public static func perUserDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let uid = getuid()
        var accountHome: String?
        if let entry = getpwuid(uid), let directory = entry.pointee.pw_dir { accountHome = String(cString: directory) }
        return perUserDirectory(accountHome: accountHome, environment: environment, uid: uid)
    }

    /// ``perUserDirectory(environment:)`` given the account's home.
    static func perUserDirectory(accountHome: String?, environment: [String: String], uid: uid_t) -> String {
        let usable = { (home: String?) -> String? in
            guard var home, home.hasPrefix("/") else { return nil }
            while home.count > 1, home.hasSuffix("/") { home.removeLast() }
            return home != "/" && isPrivateDirectory(home, uid: uid) ? home : nil
        }
        guard let home = usable(accountHome) ?? usable(environment["HOME"]) else { return "/tmp/vault-locks-\(uid)" }
        return home + "/.cache/vault/locks"
    }

    /// Whether `path` is a directory (a link to one counts: homes often are) of `uid` that
    /// the group and others cannot write to.
    static func isPrivateDirectory(_ path: String, uid: uid_t) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR && status.st_uid == uid && status.st_mode & 0o022 == 0
    }

    /// Creates the lock file's directory (and missing parents) 0700, and refuses one that
    /// is not a directory, belongs to another user, or that the group or others can write
    /// to: the vault directory's rule (``PrivateDirectory``), so a lock beside the vault
    /// file works wherever the vault does. Then waits (off the concurrency pool) until the
    /// lock is held, at most `timeout`: ``VaultError/lockTimeout(_:)``, naming the lock file.
    public static func acquire(path: String, timeout: Duration) async throws(VaultError) -> FileLock {
        try await Blocking.run { () throws(VaultError) in
            try PrivateDirectory.prepare(PrivateDirectory.parent(of: path), what: "the lock directory")
        }
        return try await FileLock.acquire(path: path, timeout: timeout, what: "the refresh lock")
    }
}

/// 64-bit FNV-1a, to name lock files without putting account names in paths.
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add(_ text: String) {
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01b3
        }
    }
}
