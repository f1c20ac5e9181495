// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultStore

// Where a command's error becomes one line on stderr and the exit code `ExitStatus` gives it.

/// Runs `body`; a `VaultError` becomes one line on stderr (``VaultError/worded``) and its exit code.
package func reportingErrors(_ body: () throws(VaultError) -> Void) throws(ExitCode) {
    do {
        try body()
    } catch {
        Terminal.note(error.worded, priority: .error)
        throw ExitCode(ExitStatus.of(error))
    }
}
