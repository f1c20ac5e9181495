// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Logging

/// A `LogHandler` that hands every rendered line (level, message, metadata, error) to
/// `append`, so a test looks for what must, and must not, be logged.
public struct CapturingLogHandler: LogHandler {
    private let append: @Sendable (String) -> Void
    public var logLevel: Logger.Level = .trace
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    /// A handler at `.trace` giving its lines to `append`.
    public init(_ append: @escaping @Sendable (String) -> Void) { self.append = append }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        var line = "\(event.level) \(event.message)"
        if !merged.isEmpty { line += " \(merged)" }
        if let error = event.error { line += " error=\(error) \(String(reflecting: error))" }
        append(line)
    }
}

/// A logger labelled `label`, at `.trace`, whose lines go to `append`.
public func capturingLogger(label: String, _ append: @escaping @Sendable (String) -> Void) -> Logger {
    var logger = Logger(label: label) { _ in CapturingLogHandler(append) }
    logger.logLevel = .trace
    return logger
}
