// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a line from the controlling terminal (`/dev/tty`) with echo turned off.
///
/// It talks to the terminal, not to stdin/stdout, so `vault save` can read the secret
/// from a pipe and still ask for the passphrase. Without a controlling terminal it fails
/// at once; it never waits for input that cannot come.
package enum TerminalPrompt {
    /// True when this process has a controlling terminal to ask on.
    package static var isAvailable: Bool {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }

    /// Shows `prompt` on the terminal and reads one line without echo (the newline is
    /// dropped). Throws `.invalidInput` when there is no terminal or the input ends.
    package static func readSecret(prompt: String) throws(VaultError) -> Secret {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw .invalidInput("no terminal to ask for input on") }
        defer { close(fd) }
        var saved = termios()
        let hasAttributes = tcgetattr(fd, &saved) == 0
        if hasAttributes {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            silent.c_lflag |= tcflag_t(ICANON)
            TerminalRestore.arm(fd: fd, saved: saved)
            _ = tcsetattr(fd, TCSAFLUSH, &silent)
        }
        defer {
            if hasAttributes {
                var restore = saved
                _ = tcsetattr(fd, TCSAFLUSH, &restore)
                TerminalRestore.disarm()
            }
        }
        writeAll(fd, prompt)
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = read(fd, &byte, 1)
            if n < 0, errno == EINTR { continue }
            if n <= 0 {
                writeAll(fd, "\n")
                throw .invalidInput("the terminal input ended")
            }
            if byte == UInt8(ascii: "\n") { break }
            line.append(byte)
        }
        writeAll(fd, "\n")
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return Secret(bytes: line)
    }

    private static func writeAll(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return }
            bytes = bytes.dropFirst(n)
        }
    }
}

/// Puts the terminal back when a signal (Ctrl-C, Ctrl-\\, a hang-up, `kill`) ends the
/// process during a no-echo prompt, so the shell is not left with echo off, and discards
/// what was typed at the prompt and not yet read: a half-typed secret left in the input
/// queue would be the shell's next command line (shown, run, kept in its history). The
/// kernel discards it for a Ctrl-C typed at the keyboard, not for a `kill`. The handler
/// only calls async-signal-safe functions: `tcflush`, `tcsetattr`, `signal`, `raise`.
package enum TerminalRestore {
    /// The signals that end a process by default and can arrive at a prompt (typed, or
    /// sent with `kill` or by a timer). Ctrl-Z (SIGTSTP) is not handled yet: the job stops
    /// with echo off and comes back with it on (the README says so).
    private static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2, SIGPROF, SIGVTALRM]

    // Written only before the handlers are installed and after they are removed, and
    // read by the handler; one prompt at a time (the prompt holds the terminal).
    nonisolated(unsafe) private static var terminal: Int32 = -1
    // On the heap, not a global `termios`: Swift 6.3.1 gives a global of this imported
    // struct a symbol of 57 bytes (its fields without their padding) while a copy into it
    // writes all 60, which AddressSanitizer reports as an overflow into the next global
    // (Scripts/sanitizers/termios-global.swift reproduces it).
    nonisolated(unsafe) private static let saved: UnsafeMutablePointer<termios> = {
        let storage = UnsafeMutablePointer<termios>.allocate(capacity: 1)
        storage.initialize(to: termios())
        return storage
    }()
    nonisolated(unsafe) private static var previous: [Int32: sighandler_t?] = [:]

    /// Remembers `saved` for `fd` and installs the handlers (not over a signal the
    /// process ignores: an ignored signal stays ignored).
    package static func arm(fd: Int32, saved settings: termios) {
        saved.pointee = settings
        terminal = fd
        for number in signals {
            let old = signal(number, handler)
            if unsafeBitCast(old, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                signal(number, SIG_IGN)
            } else {
                previous[number] = old
            }
        }
    }

    /// Removes the handlers, restoring what was there before.
    package static func disarm() {
        for (number, old) in previous { signal(number, old) }
        previous = [:]
        terminal = -1
    }

    private static let handler: @convention(c) (Int32) -> Void = { number in
        if TerminalRestore.terminal >= 0 {
            // TCSANOW after a flush of the input alone: TCSAFLUSH would also wait for the
            // output to drain, which a terminal stopped with Ctrl-S never does.
            _ = tcflush(TerminalRestore.terminal, TCIFLUSH)
            _ = tcsetattr(TerminalRestore.terminal, TCSANOW, TerminalRestore.saved)
        }
        signal(number, SIG_DFL)
        raise(number)
    }
}

/// The terminal prompt as the store's `SecretPrompter`.
package struct TerminalPrompter: SecretPrompter {
    package var isAvailable: Bool { TerminalPrompt.isAvailable }
    package func readSecret(prompt: String) throws(VaultError) -> Secret { try TerminalPrompt.readSecret(prompt: prompt) }
    /// One line on stderr (`vault: MESSAGE`).
    package func warn(_ message: String) { Terminal.note(message) }
}
