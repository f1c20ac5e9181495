// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultTestSupport

/// The one flock primitive (``FileLock``), as the vault file's lock and the refresh lock
/// (``RefreshLock``, ``FileAccountLocking``) use it.
@Suite(.offThePool) struct FileLockTests {
    @Test func heldByOneAtATimeAndFreedOnRelease() async throws {
        try await withTemporaryDirectory("vault-filelock") { dir in
            let path = dir + "/a.lock"
            let first = try FileLock(path: path, timeout: .seconds(1))
            let start = ContinuousClock.now
            let busy = #expect(throws: VaultError.self) { _ = try FileLock(path: path, timeout: .milliseconds(200)) }
            #expect(Self.isLockTimeout(busy, naming: path), "\(String(describing: busy))")
            #expect(ContinuousClock.now - start < Sanitizer.scaled(.seconds(5)))
            first.release()
            first.release()  // harmless
            let second = try await FileLock.acquire(path: path, timeout: .seconds(1))
            second.release()
        }
    }

    @Test func aCancelledWaitEndsWithLockTimeout() async throws {
        try await withTemporaryDirectory("vault-filelock") { dir in
            let path = dir + "/a.lock"
            let held = try FileLock(path: path, timeout: .seconds(1))
            let start = ContinuousClock.now
            // The message tells a cancelled wait from a timed-out one; the time bound only
            // catches a wait that ignores cancellation, with room for a starved test process.
            let waiter = Task { try await FileLock.acquire(path: path, timeout: .seconds(120)) }
            try await Task.sleep(for: .milliseconds(100))
            waiter.cancel()
            let result = await waiter.result
            #expect(ContinuousClock.now - start < Sanitizer.scaled(.seconds(60)), "the wait outlived its cancellation")
            guard case .failure(let error) = result, case .lockTimeout(let why)? = error as? VaultError else {
                Issue.record("not a lock timeout: \(result)")
                return
            }
            #expect(why.contains("stopped waiting"), "\(why)")
            held.release()
        }
    }

    @Test("a lock file that is a symlink, a FIFO or another kind of file is refused, never followed or blocked on")
    func hostileLockFiles() async throws {
        try await withTemporaryDirectory("vault-filelock") { dir in
            let link = dir + "/link.lock"
            symlink(dir + "/elsewhere", link)
            let fifo = dir + "/fifo.lock"
            mkfifo(fifo, 0o600)
            let directory = dir + "/dir.lock"
            mkdir(directory, 0o700)
            // A lock file others may open: another user could hold the lock and stall every write.
            let open = dir + "/open.lock"
            #expect(FileManager.default.createFile(atPath: open, contents: nil, attributes: [.posixPermissions: 0o644]))
            for path in [link, fifo, directory, open] {
                let refused = #expect(throws: VaultError.self) { _ = try FileLock(path: path, timeout: .seconds(1)) }
                #expect(refused?.description.contains("refusing the lock file \(path)") == true, "\(String(describing: refused))")
                #expect(Self.isPermission(refused), "\(path): \(String(describing: refused))")
            }
            let refusedOpen = #expect(throws: VaultError.self) { _ = try FileLock(path: open, timeout: .seconds(1)) }
            #expect(refusedOpen?.description.contains("chmod 600 \(open)") == true, "\(String(describing: refusedOpen))")
            let mode = try FileManager.default.attributesOfItem(atPath: open)[.posixPermissions] as? Int
            #expect(mode == 0o644, "the lock file's mode is the user's to change")
            #expect(!FileManager.default.fileExists(atPath: dir + "/elsewhere"), "nothing created through the link")
            // The refresh lock has the same checks (before, it followed no link but checked nothing else).
            let refresh = await #expect(throws: VaultError.self) { _ = try await RefreshLock.acquire(path: fifo, timeout: .seconds(1)) }
            #expect(Self.isPermission(refresh), "the refresh lock took a FIFO: \(String(describing: refresh))")
        }
    }

    @Test func theRefreshLockIsAFileLockInAPrivateDirectory() async throws {
        try await withTemporaryDirectory("vault-filelock") { dir in
            let locks = dir + "/a/b/locks"
            let path = RefreshLock.path(directory: locks, server: "https://api.example.com", account: "a")
            let hold = try await FileAccountLocking(directory: locks).lock(server: "https://api.example.com", account: "a", timeout: .seconds(1))
            let mode = try FileManager.default.attributesOfItem(atPath: locks)[.posixPermissions] as? Int
            #expect(mode == 0o700)
            let busy = await #expect(throws: VaultError.self) { _ = try await RefreshLock.acquire(path: path, timeout: .milliseconds(200)) }
            #expect(Self.isLockTimeout(busy, naming: path), "\(String(describing: busy))")
            await hold.release()
            let again = try await RefreshLock.acquire(path: path, timeout: .seconds(1))
            again.release()
        }
    }

    static func isPermission(_ error: VaultError?) -> Bool {
        if case .permission? = error { true } else { false }
    }

    /// True for ``VaultError/lockTimeout(_:)`` naming `path`.
    static func isLockTimeout(_ error: VaultError?, naming path: String) -> Bool {
        if case .lockTimeout(let why)? = error { why.contains(path) } else { false }
    }
}
