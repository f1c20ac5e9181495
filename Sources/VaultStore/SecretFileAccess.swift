// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CLinuxSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The one rule for files that hold a secret (passphrase files, the etcd password file, an
/// OAuth client secret file, Apple's `.p8` key): a regular file that another user may open
/// is refused, as ssh refuses such a key. Pipes, FIFOs and sockets (`<(...)`, a heredoc,
/// `--passphrase-file -` from a pipe) are not files anyone else can open later, and are not
/// judged by their mode.
///
/// "Another user" reads POSIX ACLs too: systemd's `LoadCredential=` gives a service its
/// credential as a root-owned 0400 file with an ACL entry for the service's user, which
/// `stat` shows as 0440 (the group bits are the ACL's mask). That file is the service's
/// alone and is accepted; a named entry for anyone else, the owning group, a named group or
/// others with access is refused.
public enum SecretFileAccess {
    /// Throws `.invalidInput` naming `path` and the fix (`chmod 600 PATH`) when the
    /// file open at `fd`, described by `info`, is ``isOpenToOthers(fd:info:permissions:)``.
    public static func check(fd: Int32, info: stat, path: String, what: String, permissions: mode_t = 0o4) throws(VaultError) {
        guard isOpenToOthers(fd: fd, info: info, permissions: permissions) else { return }
        let how =
            accessControlList(fd) != nil
            ? "its access control list lets other users \(verb(permissions)) it"
            : "its mode \(String(info.st_mode & 0o777, radix: 8)) lets other users \(verb(permissions)) it"
        throw .invalidInput("refusing \(what) \(path): \(how); make it private: chmod 600 \(path)")
    }

    /// True when `fd` is a regular file that lets the group or others (or, through an ACL,
    /// another user) use any of `permissions` (`0o4` read, the default; `0o7` any access).
    /// Anything but a regular file is not.
    public static func isOpenToOthers(fd: Int32, info: stat, permissions: mode_t = 0o4) -> Bool {
        guard info.st_mode & S_IFMT == S_IFREG else { return false }
        if let acl = accessControlList(fd) { return acl.grantsOthers(permissions) }
        return info.st_mode & (permissions << 3 | permissions) != 0
    }

    private static func verb(_ permissions: mode_t) -> String {
        permissions == 0o4 ? "read" : "use"
    }

    // MARK: - POSIX ACLs

    /// One entry of a POSIX access ACL (linux/posix_acl_xattr.h).
    struct Entry {
        var tag: UInt16
        var permissions: UInt16
        var id: UInt32
    }

    /// An access ACL beyond the mode bits, as the kernel stores it in `system.posix_acl_access`.
    struct AccessControlList {
        var entries: [Entry]

        static let userObject: UInt16 = 0x01
        static let user: UInt16 = 0x02
        static let groupObject: UInt16 = 0x04
        static let group: UInt16 = 0x08
        static let mask: UInt16 = 0x10
        static let other: UInt16 = 0x20

        /// Parses the xattr's bytes (version 2, then 8-byte entries, little-endian); nil when malformed.
        init?(_ bytes: [UInt8]) {
            func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
            func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
            guard bytes.count >= 4, (bytes.count - 4) % 8 == 0, u32(0) == 2 else { return nil }
            entries = stride(from: 4, to: bytes.count, by: 8).map { Entry(tag: u16($0), permissions: u16($0 + 2), id: u32($0 + 4)) }
        }

        /// Whether anyone but the owner and the calling user gets any of `permissions`:
        /// the owning group, a named group, a named user other than the caller (each as far
        /// as the mask lets it), or others.
        func grantsOthers(_ permissions: mode_t) -> Bool {
            let wanted = UInt16(permissions & 0o7)
            let mask = entries.first { $0.tag == Self.mask }?.permissions ?? 0o7
            let caller = UInt32(getuid())
            return entries.contains { entry in
                switch entry.tag {
                case Self.groupObject, Self.group: entry.permissions & mask & wanted != 0
                case Self.user: entry.id != caller && entry.permissions & mask & wanted != 0
                case Self.other: entry.permissions & wanted != 0
                default: false
                }
            }
        }
    }

    /// The file's access ACL, or nil when it has none beyond its mode (or ACLs cannot be read here).
    static func accessControlList(_ fd: Int32) -> AccessControlList? {
        var bytes = [UInt8](repeating: 0, count: 4 + 8 * 64)
        let count = bytes.withUnsafeMutableBytes { vault_fgetxattr(fd, "system.posix_acl_access", $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return AccessControlList(Array(bytes[0..<count]))
    }
}
