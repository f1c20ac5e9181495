// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore
import VaultStoreCLI

/// The last step of `vault exec`: this process becomes the command.
enum ProcessReplacement {
    /// Removes what vault never hands down (``ChildEnvironment``: every `VAULT_*` variable and
    /// `CREDENTIALS_DIRECTORY`), sets `values` (a binding may name any variable, one of
    /// those too), and replaces this process with `command` (`execvp`:
    /// found on `PATH` unless it names a path). The state vault changed for itself (the
    /// core-file limit, ignored signals, the signal mask) is restored first. When the
    /// command cannot be run: one line, and exit 127 when it is not found, else 126.
    static func exec(_ command: [String], setting values: [(name: String, value: [UInt8])]) -> Never {
        // The command gets the values it was bound to, not what opens the vault.
        for name in ProcessInfo.processInfo.environment.keys where ChildEnvironment.isWithheld(name) { unsetenv(name) }
        for (name, value) in values {
            // Byte for byte: a secret need not be UTF-8.
            let cValue = value.map { CChar(bitPattern: $0) } + [0]
            guard setenv(name, cValue, 1) == 0 else {
                Terminal.note("cannot set \(name): \(String(cString: strerror(errno)))")
                Terminal.exit(ExitStatus.unavailable)
            }
        }
        ProcessHardening.restoreForExec()
        let argv = command.map { strdup($0) } + [nil]
        execvp(command[0], argv)
        let failure = errno
        Terminal.note("cannot run \(command[0]): \(String(cString: strerror(failure)))", priority: .error)
        Terminal.exit(failure == ENOENT || failure == ENOTDIR ? 127 : 126)
    }
}
