// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import FoundationEssentials
import VaultStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Output helpers: exact bytes to stdout, one-line messages to stderr.
package enum Terminal {
    /// Writes `bytes` to stdout, all of them. Output that cannot be written (a closed
    /// pipe, a full disk) ends vault with one line on stderr and exit code 4, never a
    /// crash.
    package static func write(_ bytes: [UInt8]) {
        if let failure = writeAll(bytes, to: STDOUT_FILENO) {
            let reason = failure == EBADF || failure == EINVAL ? "it is closed" : String(cString: strerror(failure))
            note("could not write to standard output: \(reason)")
            Terminal.exit(ExitStatus.unavailable)
        }
    }

    /// Writes every byte to `descriptor`; nil, or the `errno` of the failure.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }

    package static func print(_ line: String) {
        write(Array((line + "\n").utf8))
    }

    /// One line on stderr, prefixed with `vault: ` (``programName``). Control characters (newlines, escape
    /// sequences from a server's message or a keyring label) are shown escaped, so an
    /// error stays one line and nothing reaches the terminal raw. When stderr is the journal
    /// the line starts with `priority` (``JournalStream``): the error that ends a command is
    /// `.error`, so `journalctl -p err` shows why a unit failed.
    package static func note(_ message: String, priority: JournalStream.Priority = .notice) {
        let line = "\(JournalStream.prefix(priority))\(programName): \(TextEscaping.escaped(message))\n"
        _ = writeAll(Array(line.utf8), to: STDERR_FILENO)
    }

    /// Writes `text` to stderr as it is (a usage summary of several lines); errors use ``note(_:)``.
    package static func writeError(_ text: String) {
        _ = writeAll(Array(text.utf8), to: STDERR_FILENO)
    }

    /// How messages name this program: `git-credential-vault` when it runs under that
    /// name (git's helper), else `vault`.
    static let programName: String = {
        let name = CommandLine.arguments.first?.split(separator: "/").last.map(String.init) ?? "vault"
        return name == "git-credential-vault" ? name : "vault"
    }()

    /// Ends the process with `status`.
    package static func exit(_ status: Int32) -> Never {
        #if canImport(Glibc)
            Glibc.exit(status)
        #else
            Musl.exit(status)
        #endif
    }

    package static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    package static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
}
