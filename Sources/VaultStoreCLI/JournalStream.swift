// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Whether standard error is systemd's journal: `JOURNAL_STREAM` (`DEVICE:INODE`, decimal)
/// names its device and inode, as systemd sets it for a unit's output (sd-daemon(3)). Then
/// a line may start with its syslog priority (`<3>` an error), which the journal keeps as
/// the entry's priority instead of printing it.
package enum JournalStream {
    /// True when `value` names standard error.
    package static func namesStandardError(_ value: String?) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    /// Decided once per process, from its environment.
    package static let isStandardError: Bool = namesStandardError(getenv("JOURNAL_STREAM").map { String(cString: $0) })

    /// The syslog priorities vault's own lines use.
    package enum Priority: Int, Sendable {
        case error = 3
        case notice = 5
    }

    /// `<N>` for `priority` when standard error is the journal, else nothing.
    package static func prefix(_ priority: Priority) -> String {
        isStandardError ? "<\(priority.rawValue)>" : ""
    }
}
