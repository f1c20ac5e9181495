// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAgentProtocol

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The socket file a process bound, known by device, inode and change time, so that it
/// removes that file and never another agent's socket bound at the same path since. The
/// inode number alone is no name: a socket bound right after the old one was unlinked
/// often gets the same number (seen in BoundSocketFileTests); its change time, to the
/// nanosecond, differs.
///
/// vault binds the path itself (``listening(at:backlog:)``) and hands SwiftNIO the descriptor:
/// NIO unlinks a socket it bound at a path when it closes it, by path, with `stat` (which
/// follows links) and no check of whose socket is there now (attack review 40).
public struct BoundSocketFile: Sendable, Equatable {
    /// The socket's path.
    public let path: String
    private let device: UInt64
    private let inode: UInt64
    private let changed: timespec

    /// The socket at `path` now (not through a link); nil when there is none.
    public init?(path: String) {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { return nil }
        self.path = path
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        changed = status.st_ctim
    }

    /// Unlinks `path` when it is still this socket; true when it did.
    @discardableResult
    public func remove() -> Bool {
        guard BoundSocketFile(path: path) == self else { return false }
        return unlink(path) == 0
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.path == b.path && a.device == b.device && a.inode == b.inode && a.changed.tv_sec == b.changed.tv_sec
            && a.changed.tv_nsec == b.changed.tv_nsec
    }

    /// A new Unix stream socket bound at `path`, born 0600 (no moment when another user
    /// could connect), listening: the descriptor and the file. Fails where `bind` does (a
    /// file already there, a path too long); closes what it opened.
    static func listening(at path: String, backlog: Int32) -> Result<(descriptor: Int32, file: BoundSocketFile), AgentSocketError> {
        let failure = { (call: String) in
            Result<(descriptor: Int32, file: BoundSocketFile), AgentSocketError>.failure(
                .system(path, call: call, reason: String(cString: strerror(errno))))
        }
        guard let address = UnixSocketAddress(path: path) else { return .failure(.pathTooLong(path)) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return failure("socket") }
        // umask is the process's: 0600 from birth, then chmod for certainty.
        let previous = umask(0o077)
        let bound = address.withSocketAddress { bind(descriptor, $0, $1) }
        umask(previous)
        guard bound == 0 else {
            let result = failure("bind")
            close(descriptor)
            return result
        }
        // The call that failed names itself: chmod, listen, or lstat (reading the identity
        // that ``remove()`` checks).
        var failedCall = "chmod"
        if chmod(path, 0o600) == 0 {
            failedCall = "listen"
            if listen(descriptor, backlog) == 0 {
                failedCall = "lstat"
                if let file = BoundSocketFile(path: path) { return .success((descriptor, file)) }
            }
        }
        let result = failure(failedCall)
        close(descriptor)
        unlink(path)
        return result
    }
}
