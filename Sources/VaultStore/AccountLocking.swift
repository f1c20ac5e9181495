// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Makes one account's refresh (and the writes that must not race it: a sign-in, a logout)
/// single-flight across every process that shares the account's store. On one machine
/// that is a lock file (``FileAccountLocking``, what ``RefreshLock/Placement/automatic``
/// uses); a fleet sharing a store on another engine brings its own, such as a lock held
/// under a lease that expires when its holder dies (``RefreshLock/Placement/custom(_:)``).
///
/// The holder re-reads the store under the lock, so a second process adopts the first
/// one's rotated tokens instead of spending the old refresh token again.
public protocol AccountLocking: Sendable {
    /// Waits until this caller holds the lock of `account` on `server`, at most `timeout`
    /// (then ``VaultError/lockTimeout(_:)``, naming what it waited for; the same when the
    /// calling task is cancelled while it waits). The lock is held until the returned hold
    /// is released: dropped, or ended by ``AccountLockHold/release()``.
    func lock(server: String, account: String, timeout: Duration) async throws(VaultError) -> any AccountLockHold
}

/// A store that brings its own account lock, because the processes sharing it may run on
/// other machines (etcd's lock under a lease); ``RefreshLock/Placement/automatic`` uses it.
public protocol AccountLockingStore: SecureStore {
    /// The lock every process sharing this store takes for an account's refresh.
    var accountLocking: any AccountLocking { get }
}

/// A held account lock. Dropping the last reference releases it.
public protocol AccountLockHold: Sendable {
    /// Releases the lock now (dropping the hold does too); releasing twice is harmless.
    func release() async

    /// Whether the lock is still this caller's, asked just before a step that must not run
    /// twice (spending a refresh token). A lock under a lease can lapse while its holder
    /// is stalled (a paused VM, SIGSTOP) past the lease: then another holder may already
    /// have done the step, and this one must start again from a fresh read.
    func isStillHeld() async -> Bool
}

extension AccountLockHold {
    /// Default: a lock that cannot lapse while its holder lives (a `flock`).
    public func isStillHeld() async -> Bool { true }
}

/// The one-machine lock: a ``FileLock`` on a file in `directory` (created 0700), one
/// file per account, named by a hash of server and account (``RefreshLock/path(directory:server:account:)``).
public struct FileAccountLocking: AccountLocking {
    /// Where the lock files live.
    public let directory: String

    /// Locks in `directory`.
    public init(directory: String) { self.directory = directory }

    public func lock(server: String, account: String, timeout: Duration) async throws(VaultError) -> any AccountLockHold {
        try await RefreshLock.acquire(path: RefreshLock.path(directory: directory, server: server, account: account), timeout: timeout)
    }
}
