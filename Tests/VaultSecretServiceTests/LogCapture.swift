// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Logging
import VaultSync
import VaultTestSupport

/// Keeps every line a provider logs, so tests can look for what must (and must not) be there.
final class LogCapture: Sendable {
    let lines = Locked<[String]>([])

    var logger: Logger {
        let capture = self
        return capturingLogger(label: "vault.secret-service.test") { line in capture.lines.withLock { $0.append(line) } }
    }

    var text: String { lines.withLock { $0.joined(separator: "\n") } }
}
