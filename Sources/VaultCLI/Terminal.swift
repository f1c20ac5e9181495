// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import Foundation
import VaultStore

/// Output helpers: exact bytes to stdout, one-line messages to stderr.
enum Terminal {
    /// Writes `bytes` to stdout, all of them. Output that cannot be written (a closed
    /// pipe, a full disk) ends vault with one line on stderr and exit code 4, never a
    /// crash.
    static func write(_ bytes: [UInt8]) {
        if let failure = writeAll(bytes, to: STDOUT_FILENO) {
            let reason = failure == EBADF || failure == EINVAL ? "it is closed" : String(cString: strerror(failure))
            note("could not write to standard output: \(reason)")
            exit(ExitStatus.unavailable)
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

    static func print(_ line: String) {
        write(Array((line + "\n").utf8))
    }

    /// One line on stderr, prefixed with `vault: `. Control characters (newlines, escape
    /// sequences from a server's message or a keyring label) are shown escaped, so an
    /// error stays one line and nothing reaches the terminal raw.
    static func note(_ message: String) {
        _ = writeAll(Array("vault: \(TextEscaping.escaped(message))\n".utf8), to: STDERR_FILENO)
    }

    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
}
