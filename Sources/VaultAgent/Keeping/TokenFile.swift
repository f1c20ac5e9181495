// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A file holding an account's current access token, exactly its bytes (no newline), as
/// Kubernetes projected tokens are read: replaced atomically, so a reader sees the old
/// token or the new one, never a part of either.
///
/// A write opens the file's directory once and does everything relative to that
/// descriptor, after `approve` accepted it (`TokenFilePlace`): a directory swapped in after
/// the check is never written to. In it, it creates a temporary file
/// (`.NAME.vault-XXXXXXXX`, `O_CREAT|O_EXCL|O_NOFOLLOW`, mode 0600, so nothing planted under
/// that name, a symlink above all, is ever followed or reused), writes the token, `fsync`s
/// it, renames it over the name (which replaces whatever is there, a symlink included,
/// without following it) and `fsync`s the directory. Blocking: call it off the concurrency pool.
enum TokenFile {
    /// Why a write or a removal failed: one line, the path and `errno`'s text, never the token.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Asked, with the open directory and its name, whether a token file may be there:
    /// why not, or nil.
    typealias Approval = (_ descriptor: Int32, _ directory: String) -> String?

    /// Replaces the file at `path` with `token`, if `approve` accepts its directory.
    static func write(_ token: [UInt8], to path: String, approve: Approval) throws(Failure) {
        let (directory, name) = split(path)
        let directoryFD = try openApproved(directory, for: path, approve)
        defer { close(directoryFD) }
        var fd: Int32 = -1
        var temporary = ""
        for _ in 0..<8 {
            temporary = "." + name + ".vault-" + randomSuffix()
            fd = openat(directoryFD, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw failure(errno, "cannot create a temporary file beside \(TextEscaping.escaped(path))") }
        var done = false
        defer {
            if fd >= 0 { close(fd) }
            if !done { unlinkat(directoryFD, temporary, 0) }
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
                throw failure(errno, "cannot write \(TextEscaping.escaped(directory + "/" + temporary))")
            }
        }
        guard fsync(fd) == 0 else { throw failure(errno, "cannot sync \(TextEscaping.escaped(directory + "/" + temporary))") }
        guard close(fd) == 0 else {
            fd = -1
            throw failure(errno, "cannot close \(TextEscaping.escaped(directory + "/" + temporary))")
        }
        fd = -1
        guard renameat(directoryFD, temporary, directoryFD, name) == 0 else {
            throw failure(errno, "cannot rename \(TextEscaping.escaped(directory + "/" + temporary)) to \(TextEscaping.escaped(path))")
        }
        done = true
        _ = fsync(directoryFD)
    }

    /// Removes the file at `path` (a symlink there is removed, not followed), if `approve`
    /// accepts its directory; true when there was one.
    @discardableResult
    static func remove(_ path: String, approve: Approval) throws(Failure) -> Bool {
        let (directory, name) = split(path)
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else {
            if errno == ENOENT { return false }
            throw failure(errno, "cannot open the directory of \(TextEscaping.escaped(path))")
        }
        defer { close(directoryFD) }
        if let refusal = approve(directoryFD, directory) {
            throw Failure(description: "refusing \(TextEscaping.escaped(path)): \(TextEscaping.escaped(refusal))")
        }
        if unlinkat(directoryFD, name, 0) == 0 {
            _ = fsync(directoryFD)
            return true
        }
        if errno == ENOENT { return false }
        throw failure(errno, "cannot remove \(TextEscaping.escaped(path))")
    }

    /// `directory`, open, once `approve` accepted it.
    private static func openApproved(_ directory: String, for path: String, _ approve: Approval) throws(Failure) -> Int32 {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(errno, "cannot open the directory of \(TextEscaping.escaped(path))") }
        if let refusal = approve(fd, directory) {
            close(fd)
            throw Failure(description: "refusing \(TextEscaping.escaped(path)): \(TextEscaping.escaped(refusal))")
        }
        return fd
    }

    /// The directory and the file name of `path` (a bare name is in `.`).
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    private static func randomSuffix() -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.encode((0..<8).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    private static func failure(_ code: Int32, _ what: String) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(code)))")
    }
}
