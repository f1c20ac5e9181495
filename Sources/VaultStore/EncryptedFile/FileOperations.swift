// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The POSIX file work of the encrypted-file backend: safe reads and atomic replacement.
/// (Its directory is made and checked by ``PrivateDirectory``, its lock is a ``FileLock``.)
enum FileOperations {
    /// The directory part of `path` ("." when there is none).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func fileName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// True when something exists at `path` (without following a final symlink).
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The largest vault file read or written: 64 MiB. A larger file is refused before
    /// it is read, so a planted huge file cannot exhaust memory.
    static let maximumVaultSize = 64 << 20

    /// The file's bytes, or nil when it does not exist. Refuses (never blocks on, never
    /// follows) a symlink, a FIFO, a directory or any other non-regular file; a file that
    /// the group or others can read or write; one over `maximumVaultSize`; and a file in
    /// a directory that is not private enough (`checkPrivateDirectory`).
    static func readPrivateFile(_ path: String) throws(VaultError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        if fd < 0 {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP { throw VaultError.permission("refusing \(path): it is a symbolic link").with(.useRealFile) }
            throw error(code, "cannot open \(path)")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw error(errno, "cannot stat \(path)") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            let what = info.st_mode & S_IFMT == S_IFDIR ? "a directory" : info.st_mode & S_IFMT == S_IFIFO ? "a FIFO" : "not a regular file"
            throw .permission("refusing \(path): it is \(what), not a vault file")
        }
        try checkPrivateDirectory(directory(of: path))
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw .permission(
                "refusing \(path): its mode \(String(mode, radix: 8)) lets other users read or change it; run: chmod 600 \(path)")
        }
        guard info.st_uid == getuid() else {
            throw .permission("refusing \(path): it belongs to user \(info.st_uid), not to you (user \(getuid()))")
        }
        let size = Int(info.st_size)
        guard size <= maximumVaultSize else {
            throw .corrupted("\(path) is \(size >> 20) MiB, larger than a vault file can be (\(maximumVaultSize >> 20) MiB)")
        }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, size - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw error(errno, "cannot read \(path)")
            }
            if n == 0 { break }
            done += n
        }
        return done == size ? bytes : Array(bytes[0..<done])
    }

    /// Refuses a vault directory that another user owns or that the group or others can
    /// write to: they could replace the vault file (the error names the command that fixes it).
    /// The rule is ``PrivateDirectory``'s, which the refresh lock's directory follows too.
    static func checkPrivateDirectory(_ path: String) throws(VaultError) {
        try PrivateDirectory.check(path, what: "the vault directory")
    }

    /// Replaces `path` with `bytes` atomically: a temporary file in the same directory
    /// (mode 0600), written and fsynced, renamed over `path`, then the directory fsynced.
    /// A crash at any moment leaves either the old or the new file, never a mix.
    static func atomicWrite(_ bytes: [UInt8], to path: String) throws(VaultError) {
        let dir = directory(of: path)
        var template = Array("\(dir)/\(tempPrefix(for: path))XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw error(errno, "cannot create a temporary file in \(dir)") }
        let tempPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var renamed = false
        defer {
            if !renamed { unlink(tempPath) }
        }
        do {
            defer { close(fd) }
            guard fchmod(fd, 0o600) == 0 else { throw error(errno, "cannot set the mode of \(tempPath)") }
            var done = 0
            while done < bytes.count {
                let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw error(errno, "cannot write \(tempPath)")
                }
                done += n
            }
            guard fsync(fd) == 0 else { throw error(errno, "cannot flush \(tempPath)") }
        }
        pauseBeforeRenameForTests()
        guard rename(tempPath, path) == 0 else { throw error(errno, "cannot replace \(path)") }
        renamed = true
        syncDirectory(dir)
    }

    /// Removes temporary files that a writer killed mid-write left behind. Call it only
    /// while holding the vault's lock: no live writer has a temporary file then.
    static func removeStaleTemporaryFiles(for path: String) {
        let dir = directory(of: path)
        let prefix = tempPrefix(for: path)
        guard let handle = opendir(dir) else { return }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name.hasPrefix(prefix), name.count == prefix.count + 6 { unlink("\(dir)/\(name)") }
        }
    }

    /// For tests only, in debug builds only (a release build has no such hook):
    /// `VAULT_TEST_WRITE_DELAY_MS` holds a written, unrenamed temporary file for that long
    /// (at most 10 s), so a test can kill a writer mid-write for sure.
    private static func pauseBeforeRenameForTests() {
        #if DEBUG
            guard let raw = getenv("VAULT_TEST_WRITE_DELAY_MS"), let milliseconds = UInt32(String(cString: raw)) else { return }
            usleep(min(milliseconds, 10_000) * 1000)
        #endif
    }

    private static func tempPrefix(for path: String) -> String { ".\(fileName(of: path)).tmp-" }

    private static func syncDirectory(_ dir: String) {
        let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    static func error(_ code: Int32, _ what: String) -> VaultError {
        let reason = String(cString: strerror(code))
        if code == EACCES || code == EPERM || code == EROFS { return .permission("\(what): \(reason)") }
        return .backendUnavailable("\(what): \(reason)")
    }
}
