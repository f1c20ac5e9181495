// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Logging
import VaultSync

/// Keeps every line a provider logs, so tests can look for what must (and must not) be there.
final class LogCapture: Sendable {
    let lines = Locked<[String]>([])

    var logger: Logger {
        let capture = self
        var logger = Logger(label: "vault.secret-service.test") { _ in CapturingHandler(capture: capture) }
        logger.logLevel = .trace
        return logger
    }

    var text: String { lines.withLock { $0.joined(separator: "\n") } }

    private struct CapturingHandler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            capture.lines.withLock { $0.append("\(event.level) \(event.message)") }
        }
    }
}
