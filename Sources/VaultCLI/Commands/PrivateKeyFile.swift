// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore
import VaultStoreCLI

/// Reads a private key file (`--private-key-file`, `AuthKey_<KEYID>.p8`) the way ssh does:
/// it must be a regular file (a symbolic link to one is fine) that neither the group nor
/// others (nor, through an ACL, another user) can read or write (`SecretFileAccess`); a
/// FIFO, a device or a directory is refused at once, never waited on. At most 1 MiB.
enum PrivateKeyFile {
    static func read(_ path: String) throws(VaultError) -> [UInt8] {
        // O_NONBLOCK: opening a FIFO with no writer must not block; it is refused below.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw .invalidInput("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .invalidInput("cannot read \(path): \(String(cString: strerror(errno)))") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .invalidInput("\(path) is not a regular file") }
        // ssh's rule (no access at all for the group and others), read through a POSIX ACL
        // too: systemd's LoadCredential= file, 0440 by its ACL mask, is the service's alone.
        guard !SecretFileAccess.isOpenToOthers(fd: fd, info: info, permissions: 0o7) else {
            throw .invalidInput(
                "\(path) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8))); make it private: chmod 600 \(path)")
        }
        return try BoundedRead.all(fd: fd, limit: 1 << 20, what: path)
    }
}
