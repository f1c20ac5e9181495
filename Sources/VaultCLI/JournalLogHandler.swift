// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Logging
import VaultStoreCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Log lines for a standard error that systemd's journal reads (sd-daemon(3)): each line
/// starts with its syslog priority (`<4>` for a warning), so `journalctl -p warning` finds
/// the agent's warnings, and carries no timestamp, which the journal records itself.
///
/// ``bootstrap()`` picks it only when `JOURNAL_STREAM` names the device and inode of
/// standard error (what systemd sets for a unit's output); anywhere else, a terminal, a
/// file, a pipe that another program set `JOURNAL_STREAM` for, swift-log's own lines.
struct JournalLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String) { self.label = label }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let given = event.metadata { merged.merge(given) { _, new in new } }
        let text = Self.line(priority: Self.priority(event.level), label: label, message: "\(event.message)", metadata: merged)
        Terminal.writeError(text)
    }

    /// The syslog priority of a swift-log level (RFC 5424's numbers: 7 debug … 2 critical).
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// One journal line per line of the message, each with the priority, so a message of
    /// several lines keeps its priority in every entry the journal makes of it.
    static func line(priority: Int, label: String, message: String, metadata: Logger.Metadata) -> String {
        let details = metadata.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        return "\(label): \(message)\(details)".split(separator: "\n", omittingEmptySubsequences: false)
            .map { "<\(priority)>\($0)\n" }.joined()
    }

    /// Makes every logger of the process write journal lines when standard error is the
    /// journal, else swift-log's standard-error lines.
    static func bootstrap() {
        if JournalStream.isStandardError {
            LoggingSystem.bootstrap { label in JournalLogHandler(label: label) }
        } else {
            LoggingSystem.bootstrap { label in StreamLogHandler.standardError(label: label) }
        }
    }
}
