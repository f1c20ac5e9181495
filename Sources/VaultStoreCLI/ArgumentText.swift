// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The command line must be UTF-8 text. Swift's `CommandLine.arguments` replaces each
/// byte that is not with U+FFFD, so `--account $'x\xff'` and `--account $'x\xfe'` would
/// name one item (and read back as neither); such an argument is refused instead.
package enum ArgumentText {
    /// Ends the process with one line and exit 2 when an argument is not UTF-8 text; the
    /// line points at the help of the program that runs (``Terminal/programName``).
    package static func requireUTF8() {
        for index in 1..<Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[index], String(validatingCString: raw) == nil else { continue }
            Terminal.note("argument \(index) is not UTF-8 text; vault takes names, options and paths as UTF-8 (see \(Terminal.programName) --help)")
            Terminal.exit(ExitStatus.usage)
        }
    }
}
