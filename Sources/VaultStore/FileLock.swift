// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultSync

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive advisory lock (`flock(LOCK_EX)`) on a lock file, between the processes of
/// one machine: the one such lock of vault, for the vault file's read-modify-writes (a lock
/// file beside it) and for an account's refresh (``RefreshLock``, ``FileAccountLocking``).
///
/// - The lock file is opened `O_RDWR|O_CREAT|O_NOFOLLOW|O_NONBLOCK` (created 0600) and must
///   be a regular file of the calling user that nobody else may open: a symbolic link, a
///   FIFO, a directory, another user's file or one with any group or other permission is
///   refused (`.permission`), never followed, blocked on or changed. The
///   directory is the caller's to prepare (``PrivateDirectory``). The file is never removed.
/// - The wait polls `LOCK_NB` every 5 ms up to the timeout, then throws
///   ``VaultError/lockTimeout(_:)`` naming the lock file.
/// - The lock is held until ``release()``, or until the last reference is dropped.
public final class FileLock: AccountLockHold {
    /// The lock file.
    public let path: String
    private let descriptor: Int32
    private let held = Locked(true)

    /// Waits, blocking the calling thread, until the lock on `path` is held, at most
    /// `timeout`. `what` names the lock in the timeout's message ("the lock", "the refresh lock").
    public convenience init(path: String, timeout: Duration, what: String = "the lock") throws(VaultError) {
        try self.init(path: path, timeout: timeout, what: what, cancellation: nil)
    }

    /// Waits until the lock on `path` is held, at most `timeout`, off the concurrency pool
    /// (``Blocking``). Cancelling the calling task ends the wait within a poll:
    /// ``VaultError/lockTimeout(_:)`` ("stopped waiting for ...").
    public static func acquire(path: String, timeout: Duration, what: String = "the lock") async throws(VaultError) -> FileLock {
        let cancellation = Cancellation()
        let result: Result<FileLock, VaultError> = await withTaskCancellationHandler {
            do throws(VaultError) {
                return .success(
                    try await Blocking.run { () throws(VaultError) -> FileLock in
                        try FileLock(path: path, timeout: timeout, what: what, cancellation: cancellation)
                    })
            } catch {
                return .failure(error)
            }
        } onCancel: {
            cancellation.cancel()
        }
        return try result.get()
    }

    private init(path: String, timeout: Duration, what: String, cancellation: Cancellation?) throws(VaultError) {
        let descriptor = try Self.openLockFile(path)
        let deadline = ContinuousClock.now + timeout
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                close(descriptor)
                throw FileOperations.error(code, "cannot lock \(path)")
            }
            guard ContinuousClock.now < deadline else {
                close(descriptor)
                throw .lockTimeout("gave up after \(timeout) waiting for \(what) \(path), held by another process")
            }
            guard !(cancellation?.isCancelled ?? false) else {
                close(descriptor)
                throw .lockTimeout("stopped waiting for \(what) \(path)")
            }
            usleep(5_000)
        }
        self.path = path
        self.descriptor = descriptor
    }

    deinit { release() }

    /// Releases the lock and closes the file, once; releasing again is harmless.
    public func release() {
        guard
            held.withLock({ held in
                defer { held = false }
                return held
            })
        else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Checks the lock file at `path` as a lock would (creating it 0600 when missing: a
    /// regular file of the caller that only the caller can open) without taking the lock.
    public static func check(path: String) throws(VaultError) {
        close(try openLockFile(path))
    }

    /// Opens (creating 0600) the lock file and checks that it is a regular file of the caller.
    private static func openLockFile(_ path: String) throws(VaultError) -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0o600)
        guard descriptor >= 0 else {
            if errno == ELOOP { throw .permission("refusing the lock file \(path): it is a symbolic link") }
            if errno == EISDIR { throw .permission("refusing the lock file \(path): it is not a regular file of yours; remove it") }
            throw FileOperations.error(errno, "cannot open the lock file \(path)")
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid() else {
            close(descriptor)
            throw .permission("refusing the lock file \(path): it is not a regular file of yours; remove it")
        }
        // Another user who can open the file can hold the lock (a flock needs no write
        // access) and stall every write or refresh: only the user may open it.
        guard info.st_mode & 0o077 == 0 else {
            close(descriptor)
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw .permission("refusing the lock file \(path): others can open it (mode \(mode)); chmod 600 \(path)")
        }
        return descriptor
    }

    /// A wait's cancellation, set from the cancelled task and read by the waiting thread.
    private final class Cancellation: Sendable {
        private let cancelled = Locked(false)
        var isCancelled: Bool { cancelled.withLock { $0 } }
        func cancel() { cancelled.withLock { $0 = true } }
    }
}
