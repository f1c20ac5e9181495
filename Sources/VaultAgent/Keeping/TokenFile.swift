// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A file holding an account's current access token, exactly its bytes (no newline), as
/// Kubernetes projected tokens are read: replaced atomically, so a reader sees the old
/// token or the new one, never a part of either.
///
/// A write creates a temporary file beside the path (`.NAME.vault-XXXXXXXX`, created with
/// `O_CREAT|O_EXCL|O_NOFOLLOW`, mode 0600, so nothing planted under that name, a symlink
/// above all, is ever followed or reused), writes the token, `fsync`s it, renames it over
/// the path (which replaces whatever is there, a symlink included, without following it)
/// and `fsync`s the directory. Blocking: call it off the concurrency pool.
enum TokenFile {
    /// Why a write or a removal failed: one line, the path and `errno`'s text, never the token.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Replaces the file at `path` with `token`.
    static func write(_ token: [UInt8], to path: String) throws(Failure) {
        let (directory, name) = split(path)
        var fd: Int32 = -1
        var temporary = ""
        for _ in 0..<8 {
            temporary = directory + "/." + name + ".vault-" + randomSuffix()
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw failure(errno, "cannot create a temporary file beside \(path)") }
        var done = false
        defer {
            if fd >= 0 { close(fd) }
            if !done { unlink(temporary) }
        }
        _ = fchmod(fd, 0o600)
        var offset = 0
        while offset < token.count {
            let written = token.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, token.count - offset) }
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                throw failure(errno, "cannot write \(temporary)")
            }
        }
        guard fsync(fd) == 0 else { throw failure(errno, "cannot sync \(temporary)") }
        guard close(fd) == 0 else {
            fd = -1
            throw failure(errno, "cannot close \(temporary)")
        }
        fd = -1
        guard rename(temporary, path) == 0 else { throw failure(errno, "cannot rename \(temporary) to \(path)") }
        done = true
        syncDirectory(directory)
    }

    /// Removes the file at `path` (a symlink there is removed, not followed); true when
    /// there was one.
    @discardableResult
    static func remove(_ path: String) throws(Failure) -> Bool {
        if unlink(path) == 0 {
            syncDirectory(split(path).directory)
            return true
        }
        if errno == ENOENT { return false }
        throw failure(errno, "cannot remove \(path)")
    }

    /// The directory and the file name of `path` (a bare name is in `.`).
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    private static func syncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    private static func randomSuffix() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = UInt64.random(in: 0...UInt64.max, using: &generator)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    private static func failure(_ code: Int32, _ what: String) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(code)))")
    }
}
