// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAgentProtocol

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Readies the place of a socket the agent binds itself (not an activated one): the path
/// fits `sun_path`; its directory exists (made 0700 when missing) and is this user's alone
/// (owned by this uid, no group or other bits, a real directory); nothing answers there.
/// A socket nobody serves is stale and removed, but only when it is a socket owned by this
/// uid; anything else at the path is refused.
public enum AgentSocketPlace {
    /// How long the check for a running agent waits for its answer.
    static let pingTimeout: Duration = .seconds(2)

    /// Checks and prepares `path` for `bind(2)`; throws, one line naming the path, when it
    /// cannot be used.
    public static func prepare(_ path: String) throws(AgentSocketError) {
        guard path.hasPrefix("/"), !path.hasSuffix("/") else { throw .occupied(path, reason: "the socket path must be absolute") }
        guard path.utf8.count <= AgentSocketPath.maximumLength else { throw .pathTooLong(path) }
        let directory = parent(of: path)
        try ensureDirectory(directory)
        try clearStaleSocket(path)
    }

    /// The directory part of an absolute `path` (`/` for a file at the root).
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// Makes `directory` (0700) when missing; refuses one that is not this user's alone.
    static func ensureDirectory(_ directory: String) throws(AgentSocketError) {
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw .system(directory, call: "mkdir", reason: String(cString: strerror(errno)))
        }
        var status = stat()
        guard lstat(directory, &status) == 0 else { throw .system(directory, call: "lstat", reason: String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT == S_IFDIR else { throw .unsafeDirectory(directory, reason: "it is not a directory") }
        guard status.st_uid == getuid() else { throw .unsafeDirectory(directory, reason: "it is owned by uid \(status.st_uid)") }
        guard status.st_mode & 0o077 == 0 else {
            let mode = String(status.st_mode & 0o777, radix: 8)
            throw .unsafeDirectory(directory, reason: "its mode is \(mode), open to others (chmod 700 it)")
        }
    }

    /// Removes a stale socket of this user at `path`; refuses a live agent or anything else.
    static func clearStaleSocket(_ path: String) throws(AgentSocketError) {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT { return }
            throw .system(path, call: "lstat", reason: String(cString: strerror(errno)))
        }
        guard status.st_mode & S_IFMT == S_IFSOCK else { throw .occupied(path, reason: "it is not a socket") }
        guard status.st_uid == getuid() else { throw .occupied(path, reason: "the socket is owned by uid \(status.st_uid)") }
        switch AgentClient.ask(.ping, socketPath: path, timeout: pingTimeout) {
        case .success: throw .alreadyRunning(path)
        case .failure(.noAgent): break
        case .failure(.otherUser(let uid)): throw .occupied(path, reason: "a process of uid \(uid) listens there")
        case .failure(let failure): throw .occupied(path, reason: "something listens there (\(failure))")
        }
        guard unlink(path) == 0 || errno == ENOENT else { throw .system(path, call: "unlink", reason: String(cString: strerror(errno))) }
    }
}
