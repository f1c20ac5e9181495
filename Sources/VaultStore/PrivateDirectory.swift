// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one rule for the directories vault keeps files in: the vault file's directory and
/// the refresh lock's. What matters is who can *replace* a file there, so a directory is
/// refused only when another user could: it belongs to another user, or the group or
/// others may write to it. A directory others can only read or enter (0755, `$HOME`'s
/// usual mode) is fine: the files in it are private by their own modes.
public enum PrivateDirectory {
    /// Refuses `path` unless it is a directory (a symbolic link to one is followed) of the
    /// calling user that neither the group nor others can write to: `.permission`
    /// with the command that fixes it. `what` names it in messages ("the vault directory").
    public static func check(_ path: String, what: String) throws(VaultError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            let message = "cannot stat \(what) \(path): \(String(cString: strerror(code)))"
            throw code == EACCES || code == EPERM ? .permission(message) : .backendUnavailable(message)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .permission("refusing \(what) \(path): it is not a directory") }
        guard info.st_uid == getuid() else {
            throw .permission("refusing \(what) \(path): it belongs to user \(info.st_uid), not to you (user \(getuid()))")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o022 == 0 else {
            throw .permission(
                "refusing \(what) \(path): its mode \(String(mode, radix: 8)) lets other users replace files in it; "
                    + "run: chmod go-w \(path)")
        }
    }

    /// ``check(_:what:)``, except that a directory that does not exist yet passes (it will be
    /// created 0700 when it is needed): for checks made ahead of time, before anything is asked or sent.
    public static func checkIfPresent(_ path: String, what: String) throws(VaultError) {
        var info = stat()
        guard stat(path, &info) == 0 || errno != ENOENT else { return }
        try check(path, what: what)
    }

    /// Creates `path` and its missing parents (mode 0700), then ``check(_:what:)``s it.
    /// Directories that exist already keep their modes.
    public static func prepare(_ path: String, what: String) throws(VaultError) {
        try create(path, what: what)
        try check(path, what: what)
    }

    private static func create(_ path: String, what: String) throws(VaultError) {
        var info = stat()
        guard stat(path, &info) != 0 else { return }
        let parent = parent(of: path)
        if parent != path, parent != "." { try create(parent, what: what) }
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            let code = errno
            let message = "cannot create \(what) \(path): \(String(cString: strerror(code)))"
            throw code == EACCES || code == EPERM || code == EROFS ? .permission(message) : .backendUnavailable(message)
        }
    }

    /// The directory part of `path` ("." when there is none, "/" for a file at the root).
    static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
}
