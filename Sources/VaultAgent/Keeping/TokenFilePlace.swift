// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAuth

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where a token file may be, decided as ssh's `StrictModes` decides for
/// `authorized_keys`: whoever can change a directory on the way to the file can put their
/// own file (or link) under its name, and a program then reads their token.
package enum TokenFilePlace {
    /// Why `path` is not a safe place for a token file, or nil. Every directory from `/`
    /// to the file's, as written and as its symbolic links resolve, and every link on the
    /// way, must belong to the user or to root. The file's own directory must be writable by
    /// neither the group nor others, sticky bit or not: in a shared directory (`/tmp`) the
    /// first to create a name owns it. A directory above it may be shared only with its
    /// sticky bit (then nobody else can replace what is in it). A directory that does not
    /// exist is refused: whoever could create it first would own it.
    package static func unsafe(_ path: String) -> String? {
        walk(TokenFile.split(path).directory, links: 0)
    }

    /// The check before each write or removal of the token file at `path`, given its
    /// directory already open: ``unsafe(_:)``, then the same rule decided on the open
    /// directory itself, which must be the one the walk checked. So a directory made or
    /// swapped in between the walk and the write is refused, not written to.
    /// Vault's own places (`own`) are checked again too, by path and by the open
    /// directory's identity, so a link on the way repointed at vault's directory after the
    /// start is caught; and whatever is at the name must be a link or a token file (the write
    /// replaces it), never a socket, a directory or a device.
    static func approval(for path: String, own: OwnPlaces = OwnPlaces(files: [])) -> TokenFile.Approval {
        { descriptor, directory in
            if let reason = unsafe(path) { return reason }
            var open = stat()
            var named = stat()
            guard fstat(descriptor, &open) == 0, stat(directory, &named) == 0 else { return "cannot examine \(directory)" }
            guard (open.st_dev, open.st_ino) == (named.st_dev, named.st_ino) else { return "\(directory) changed while it was checked" }
            if let reason = verdict(open, directory, holdsTheFile: true) { return reason }
            let name = TokenFile.split(path).name
            if let reason = ownFile(path, among: own) ?? own.holds(name, inDirectory: open) { return reason }
            return occupant(descriptor, name)
        }
    }

    /// Why what is at `path` may not be replaced by a token file, or nil (nothing there, a
    /// link, a token file): the check at the agent's start, before every write's.
    package static func occupied(_ path: String) -> String? {
        let (directory, name) = TokenFile.split(path)
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }  // no directory: refused by ``unsafe(_:)``
        defer { close(descriptor) }
        return occupant(descriptor, name)
    }

    /// Why the entry `name` of the open directory may not be replaced, or nil. A link is
    /// replaced, never followed. A regular file only when it is empty or holds a token as
    /// vault writes one (visible ASCII, at most 16 KiB, no newline), its owner may write it,
    /// and its name is not a lock file's (`*.lock`): vault replaces only what it wrote, never
    /// a file of the user's (another vault file, its lock, a passphrase file, a script). A
    /// socket, a directory or a device is never replaced.
    private static func occupant(_ descriptor: Int32, _ name: String) -> String? {
        var entry = stat()
        guard fstatat(descriptor, name, &entry, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        let type = entry.st_mode & S_IFMT
        guard type == S_IFREG || type == S_IFLNK else { return "something other than a file is at its name (\(kind(type)))" }
        guard type == S_IFREG else { return nil }
        // A file its owner made read-only (`chmod 400`, a passphrase file's idiom) is not to be
        // changed; a lock file (another vault's `vault.db.lock` is empty) never becomes a token.
        if entry.st_mode & S_IWUSR == 0 { return "the file at its name is read-only, and vault replaces only its own token files" }
        if name.hasSuffix(".lock") { return "the file at its name is a lock file (*.lock), which vault never replaces" }
        let notAToken = "the file at its name holds something other than a token, and vault replaces only its own token files"
        guard entry.st_size <= TokenCharacters.maximumLength else { return notAToken }
        let fd = openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return "cannot read the file at its name (\(String(cString: strerror(errno))))" }
        defer { close(fd) }
        var opened = stat()
        guard fstat(fd, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG else { return "the file at its name changed while it was checked" }
        var content = [UInt8](repeating: 0, count: TokenCharacters.maximumLength + 1)
        var count = 0
        while count < content.count {
            let got = content.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if got > 0 {
                count += got
            } else if got < 0, errno == EINTR {
                continue
            } else {
                break
            }
        }
        let looksLikeAToken = count <= TokenCharacters.maximumLength && content[..<count].allSatisfy { (0x21...0x7E).contains($0) }
        for index in content.indices { content[index] = 0 }
        return looksLikeAToken ? nil : notAToken
    }

    private static func kind(_ type: mode_t) -> String {
        switch type {
        case S_IFSOCK: "a socket"
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR, S_IFBLK: "a device"
        default: "not a regular file"
        }
    }

    /// Why `path` names one of vault's own files or lies in one of its own directories
    /// (`own`), or nil: the same path once the links of its directory are resolved, or the
    /// same file (device and inode, so a hard or symbolic link to it counts). A token
    /// written there would replace the vault, its passphrase, its socket or a lock that
    /// keeps refreshes single.
    package static func ownFile(_ path: String, among own: OwnPlaces) -> String? {
        let resolved = resolved(path)
        let (directory, name) = TokenFile.split(resolved)
        var info = stat()
        let existing = stat(path, &info) == 0 ? (info.st_dev, info.st_ino) : nil
        for (what, ownPath) in own.files where !ownPath.isEmpty {
            if resolved == self.resolved(ownPath) { return "it is \(what)" }
            var ownInfo = stat()
            if let existing, stat(ownPath, &ownInfo) == 0, existing == (ownInfo.st_dev, ownInfo.st_ino) {
                return "it is \(what) (another name of the same file)"
            }
        }
        for (what, ownDirectory) in own.directories where !ownDirectory.isEmpty {
            let real = realPath(ownDirectory) ?? self.resolved(ownDirectory)
            if resolved == real || directory == real || directory.hasPrefix(real == "/" ? "/" : real + "/") {
                return "it is in \(what), \(ownDirectory)"
            }
        }
        for (lockDirectory, vaultName) in own.lockFileDirectories where !lockDirectory.isEmpty {
            if directory == (realPath(lockDirectory) ?? lockDirectory), OwnPlaces.isReservedName(name, beside: vaultName) {
                return "it is one of vault's lock or temporary files (\(name))"
            }
        }
        return nil
    }

    /// What a token file must never replace: vault's files, the directories that are only
    /// vault's, and the directories where vault keeps lock files beside other files.
    package struct OwnPlaces: Sendable {
        /// Each file, with what it is ("the vault file").
        package var files: [(what: String, path: String)]
        /// Directories where nothing but vault's own files belong ("the lock directory").
        package var directories: [(what: String, path: String)]
        /// Directories where vault makes lock files (`refresh-*.lock`, `item-*.lock`) and
        /// the vault file's temporary files (`.NAME.tmp-*`) among the user's own: the vault
        /// file's directory, with the vault file's name.
        package var lockFileDirectories: [(directory: String, vaultName: String)]

        package init(
            files: [(what: String, path: String)], directories: [(what: String, path: String)] = [],
            lockFileDirectories: [(directory: String, vaultName: String)] = []
        ) {
            self.files = files
            self.directories = directories
            self.lockFileDirectories = lockFileDirectories
        }

        /// Whether `name` beside the vault file `vaultName` is one vault makes: an account's
        /// refresh lock, an item's write lock, or a temporary file of the vault's writes
        /// (which vault's clean-up deletes).
        static func isReservedName(_ name: String, beside vaultName: String) -> Bool {
            ((name.hasPrefix("refresh-") || name.hasPrefix("item-")) && name.hasSuffix(".lock"))
                || (!vaultName.isEmpty && name.hasPrefix("." + vaultName + ".tmp-"))
        }

        /// Why the name `name` in the open directory `directory` (its `stat`) is one of these
        /// places, decided by the directory's identity (device and inode), not its path.
        func holds(_ name: String, inDirectory directory: stat) -> String? {
            let identity = (directory.st_dev, directory.st_ino)
            func same(_ path: String) -> Bool {
                var info = stat()
                return stat(path, &info) == 0 && (info.st_dev, info.st_ino) == identity
            }
            for (what, path) in files where !path.isEmpty {
                let (ownDirectory, ownName) = TokenFile.split(path)
                if ownName == name, same(ownDirectory) { return "it is \(what)" }
            }
            for (what, path) in directories where !path.isEmpty && same(path) { return "it is in \(what), \(path)" }
            for (path, vaultName) in lockFileDirectories where !path.isEmpty && same(path) && Self.isReservedName(name, beside: vaultName) {
                return "it is one of vault's lock or temporary files (\(name))"
            }
            return nil
        }
    }

    /// Checks `directory` and each directory above it (its last holds the file when
    /// `lastHoldsTheFile`); a symbolic link on the way is followed and its target checked
    /// the same way (at most 16 links).
    private static func walk(_ directory: String, links: Int, lastHoldsTheFile: Bool = true) -> String? {
        guard links < 16 else { return "more than 16 symbolic links lead to its directory" }
        let components = directory.split(separator: "/").filter { $0 != "." }
        var prefix = ""
        var root = stat()
        if stat("/", &root) == 0, let reason = verdict(root, "/", holdsTheFile: lastHoldsTheFile && components.isEmpty) {
            return reason
        }
        for (index, component) in components.enumerated() {
            let holdsTheFile = lastHoldsTheFile && index == components.count - 1
            let next = prefix + "/" + component
            var info = stat()
            guard lstat(next, &info) == 0 else {
                return errno == ENOENT ? "the directory \(next) does not exist" : "cannot examine \(next)"
            }
            if info.st_mode & S_IFMT == S_IFLNK {
                // Its directory passed: only the link's owner (or that directory's) can change it.
                guard info.st_uid == getuid() || info.st_uid == 0 else {
                    return "the link \(next) belongs to user \(info.st_uid), who could point it elsewhere"
                }
                // The link as written, so that every link of a chain is checked, then its end.
                // A target that is not UTF-8 would be checked under another (repaired) name: refused.
                guard let written = linkTarget(next) else { return "the link \(next) cannot be read as a UTF-8 path" }
                guard let target = realPath(next) else { return "the link \(next) leads nowhere" }
                let absolute = written.hasPrefix("/") ? written : (prefix.isEmpty ? "" : prefix) + "/" + written
                if let reason = walk(absolute, links: links + 1, lastHoldsTheFile: holdsTheFile) { return reason }
                prefix = target == "/" ? "" : target
                continue
            }
            guard info.st_mode & S_IFMT == S_IFDIR else { return "\(next) is not a directory" }
            if let reason = verdict(info, next, holdsTheFile: holdsTheFile) { return reason }
            prefix = next
        }
        return nil
    }

    /// Why `directory` (`info`) is unsafe: another user owns it, or others may write in it
    /// (above the file's directory, allowed with the sticky bit).
    private static func verdict(_ info: stat, _ directory: String, holdsTheFile: Bool) -> String? {
        if info.st_uid != getuid() && info.st_uid != 0 {
            return "the directory \(directory) belongs to user \(info.st_uid), who could replace the file"
        }
        guard info.st_mode & 0o022 != 0 else { return nil }
        if holdsTheFile {
            return "others can write in its directory \(directory) (the first to create a name there owns it, sticky bit or not)"
        }
        if info.st_mode & S_ISVTX == 0 {
            return "others can write in the directory \(directory) without its sticky bit, so they could replace what is in it"
        }
        return nil
    }

    /// The longest token file name whose temporary file (`.NAME.vault-` and 16 hex
    /// digits) still fits a file name (255 bytes).
    package static let longestName = 255 - 24

    /// The directory part of `path` (`/` for a file at the root, `.` for a bare name).
    package static func directory(of path: String) -> String { TokenFile.split(path).directory }

    /// `path` with its directory's links resolved (the name itself kept: the token is
    /// renamed over it, never written through it); `path` itself when that fails.
    package static func resolved(_ path: String) -> String {
        let (directory, name) = TokenFile.split(path)
        guard let real = realPath(directory) else { return path }
        return (real == "/" ? "" : real) + "/" + name
    }

    private static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(validating: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func realPath(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
