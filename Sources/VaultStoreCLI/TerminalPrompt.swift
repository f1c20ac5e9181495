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
    ///
    /// Ctrl-Z (or SIGTSTP, SIGTTIN, SIGTTOU) at the prompt stops vault with echo back on
    /// and what was typed discarded (``TerminalRestore``); after `fg` it turns echo off
    /// again and asks again from the start, as readpassphrase(3) does.
    package static func readSecret(prompt: String) throws(VaultError) -> Secret {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw .invalidInput("no terminal to ask for input on") }
        defer { close(fd) }
        var saved = termios()
        let hasAttributes = tcgetattr(fd, &saved) == 0
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ICANON)
        if hasAttributes { TerminalRestore.arm(fd: fd, saved: saved) }
        defer {
            if hasAttributes {
                var restore = saved
                _ = tcsetattr(fd, TCSAFLUSH, &restore)
                TerminalRestore.disarm()
            }
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        var ask = true
        while true {
            // Here, not in the handler: a stop interrupts the read (EINTR) and leaves the
            // flag; the check at the top also sees a stop while asking.
            if TerminalRestore.takeContinued() { ask = true }
            if ask {
                line.removeAll()
                // Interrupted by a stop (SIGTTOU: a background job), it is tried again.
                if hasAttributes, tcsetattr(fd, TCSAFLUSH, &silent) != 0, errno == EINTR { continue }
                ask = false
                writeAll(fd, prompt)
                continue
            }
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
/// kernel discards it for a Ctrl-C typed at the keyboard, not for a `kill`. The same for
/// a stop (Ctrl-Z, `kill -TSTP`, SIGTTIN, SIGTTOU), which then continues the prompt after
/// `fg`. The handlers only call async-signal-safe functions: `tcflush`, `tcsetattr`,
/// `tcgetpgrp`, `getpgrp`, `signal`, `sigaction`, `sigemptyset`, `sigaddset`, `pthread_sigmask`,
/// `pthread_self`, `pthread_equal`, `pthread_kill`, `raise`.
package enum TerminalRestore {
    /// The signals that end a process by default and can arrive at a prompt (typed, or
    /// sent with `kill` or by a timer). Installed with `signal` (SA_RESTART): they end vault.
    private static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2, SIGPROF, SIGVTALRM]
    /// The signals that stop a process by default: Ctrl-Z, and a background job's terminal
    /// read or write. Installed without SA_RESTART, so the prompt's read returns EINTR
    /// after the process is continued and asks again.
    private static let stopSignals: [Int32] = [SIGTSTP, SIGTTIN, SIGTTOU]

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
    nonisolated(unsafe) private static var previousStop: [Int32: sigaction] = [:]
    nonisolated(unsafe) private static var previousContinue = sigaction()
    /// The prompt's thread: only there does a handler interrupt the read.
    nonisolated(unsafe) private static var reader = pthread_t()
    /// The prompt thread's signal mask before ``arm(fd:saved:)`` unblocked the stop signals.
    nonisolated(unsafe) private static var readerMask = sigset_t()
    /// Set by the stop handler once the process is continued ("stopped: ask again"),
    /// cleared by ``takeContinued()``; a `sig_atomic_t`, written whole.
    nonisolated(unsafe) private static var continued: sig_atomic_t = 0

    /// Remembers `saved` for `fd` and installs the handlers (not over a signal the
    /// process ignores: an ignored signal stays ignored). Call it on the thread that reads.
    package static func arm(fd: Int32, saved settings: termios) {
        saved.pointee = settings
        terminal = fd
        reader = pthread_self()
        continued = 0
        var stops = stopSet()
        sigaddset(&stops, SIGCONT)
        _ = pthread_sigmask(SIG_UNBLOCK, &stops, &readerMask)
        for number in signals {
            let old = signal(number, handler)
            if unsafeBitCast(old, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                signal(number, SIG_IGN)
            } else {
                previous[number] = old
            }
        }
        // SIGCONT after a stop vault did not see (SIGSTOP cannot be caught): bash restored
        // its own terminal modes, so echo was on for the rest of the prompt (attack review
        // 39). Once continued, the read loop turns echo off again and asks again.
        var continueAction = sigaction()
        continueAction.__sigaction_handler.sa_handler = continueHandler
        continueAction.sa_flags = 0
        sigemptyset(&continueAction.sa_mask)
        sigaction(SIGCONT, &continueAction, &previousContinue)
        for number in stopSignals {
            var old = sigaction()
            guard sigaction(number, nil, &old) == 0,
                unsafeBitCast(old.__sigaction_handler, to: Int.self) != unsafeBitCast(SIG_IGN, to: Int.self)
            else { continue }
            previousStop[number] = old
            installStopHandler(number)
        }
    }

    /// Removes the handlers, restoring what was there before (and the thread's mask).
    package static func disarm() {
        for (number, old) in previous { signal(number, old) }
        for (number, old) in previousStop {
            var action = old
            sigaction(number, &action, nil)
        }
        sigaction(SIGCONT, &previousContinue, nil)
        previous = [:]
        previousStop = [:]
        _ = pthread_sigmask(SIG_SETMASK, &readerMask, nil)
        terminal = -1
        continued = 0
    }

    /// True once after the process was stopped at the prompt and continued: turn echo off
    /// and ask again.
    package static func takeContinued() -> Bool {
        guard continued != 0 else { return false }
        continued = 0
        return true
    }

    private static let handler: @convention(c) (Int32) -> Void = { number in
        restoreTerminal()
        signal(number, SIG_DFL)
        raise(number)
    }

    /// The process was continued (after any stop, SIGSTOP included): on the prompt's thread
    /// the read returns EINTR and the loop turns echo off and asks again.
    private static let continueHandler: @convention(c) (Int32) -> Void = { number in
        if pthread_equal(pthread_self(), TerminalRestore.reader) == 0 {
            _ = pthread_kill(TerminalRestore.reader, number)
            return
        }
        TerminalRestore.continued = 1
    }

    /// Restores the terminal, stops the process (the default action), and once it is
    /// continued reinstalls itself and sets the flag; the prompt's read returns EINTR.
    private static let stopHandler: @convention(c) (Int32) -> Void = { number in
        // A signal sent to the process may be handled on another thread, whose stop would
        // not interrupt the prompt's read: hand it to the prompt's thread.
        if pthread_equal(pthread_self(), TerminalRestore.reader) == 0 {
            _ = pthread_kill(TerminalRestore.reader, number)
            return
        }
        restoreTerminal()
        signal(number, SIG_DFL)
        // The signal is blocked while its handler runs: unblock it, or raise would not stop.
        var this = sigset_t()
        sigemptyset(&this)
        sigaddset(&this, number)
        _ = pthread_sigmask(SIG_UNBLOCK, &this, nil)
        raise(number)
        // Continued (SIGCONT, `fg`): the read loop turns echo off and asks again.
        installStopHandler(number)
        TerminalRestore.continued = 1
    }

    /// TCSANOW after a flush of the input alone: TCSAFLUSH would also wait for the output
    /// to drain, which a terminal stopped with Ctrl-S never does. Not from a background
    /// job (its SIGTTIN or SIGTTOU): the terminal, settings and input, is the foreground's.
    private static func restoreTerminal() {
        guard terminal >= 0, tcgetpgrp(terminal) == getpgrp() else { return }
        _ = tcflush(terminal, TCIFLUSH)
        _ = tcsetattr(terminal, TCSANOW, saved)
    }

    /// The stop signals: blocked while a stop handler runs (one stop at a time), and
    /// unblocked on the prompt's thread while it reads.
    private static func stopSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTSTP)
        sigaddset(&set, SIGTTIN)
        sigaddset(&set, SIGTTOU)
        return set
    }

    /// `stopHandler` for `number`, without SA_RESTART (glibc's `signal` sets it).
    private static func installStopHandler(_ number: Int32) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = stopHandler
        action.sa_flags = 0
        action.sa_mask = stopSet()
        sigaction(number, &action, nil)
    }
}

/// The terminal prompt as the store's `SecretPrompter`.
package struct TerminalPrompter: SecretPrompter {
    package var isAvailable: Bool { TerminalPrompt.isAvailable }
    package func readSecret(prompt: String) throws(VaultError) -> Secret { try TerminalPrompt.readSecret(prompt: prompt) }
    /// One line on stderr (`vault: MESSAGE`).
    package func warn(_ message: String) { Terminal.note(message) }
}
