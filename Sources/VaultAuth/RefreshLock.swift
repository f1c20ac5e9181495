#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import VaultStore

/// A cross-process lock (an exclusive `flock` on a lock file) that makes a refresh or
/// a re-login single-flight across every process sharing one store. The holder re-reads
/// the store under it, so a second process adopts the first one's rotated tokens
/// instead of spending the old refresh token again.
public final class RefreshLock: Sendable {
    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// The lock file for an account, in `directory` (created 0700 when missing).
    public static func path(directory: String, server: String, account: String) -> String {
        var hasher = FNV1a()
        hasher.add(server)
        hasher.add("\u{0}")
        hasher.add(account)
        return "\(directory)/refresh-\(String(hasher.value, radix: 16)).lock"
    }

    /// Waits (polling, off the concurrency pool) until the lock is held, at most `timeout`.
    public static func acquire(path: String, timeout: Duration) async throws(AuthError) -> RefreshLock {
        let fd = try await offload { () throws(VaultError) -> Int32 in
            let directory = (path as NSString).deletingLastPathComponent
            if !FileManager.default.fileExists(atPath: directory) {
                try? FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw .backendUnavailable("cannot open the lock file \(path): \(String(cString: strerror(errno)))")
            }
            return fd
        }
        let deadline = ContinuousClock.now + timeout
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                close(fd)
                throw .store(.backendUnavailable("cannot lock \(path)"))
            }
            guard ContinuousClock.now < deadline else {
                close(fd)
                throw .network("another process has held the refresh lock for more than \(timeout)")
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return RefreshLock(fd: fd)
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
