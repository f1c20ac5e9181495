// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// A command run with its standard error on a pseudo-terminal (stdin and stdout `/dev/null`),
/// as a person at a terminal runs it: what it says only on a terminal (a wait notice, a
/// reminder) shows there. Python's `pty` plays the terminal; the child waits on a thread of
/// its own (``ChildProcess/runAsync(_:_:environment:stdin:timeout:)``).
public enum StderrOnATerminal {
    /// The lines `executable ARGUMENTS` wrote on the terminal (`\r\n` read as `\n`), and its
    /// exit status (negative: the signal that ended it). `timeout` bounds a hang only.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String], timeout: Double = 120
    ) async throws -> (lines: [String], status: Int) {
        let script = #"""
            import os, pty, select, subprocess, sys, time
            bound = float(sys.argv[1])
            master, slave = pty.openpty()
            child = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave, close_fds=True)
            os.close(slave)
            seen, deadline = b"", time.time() + bound
            while child.poll() is None and time.time() < deadline:
                if select.select([master], [], [], 0.2)[0]:
                    try:
                        seen += os.read(master, 4096)
                    except OSError:
                        break
            code = child.wait(timeout=30)
            sys.stdout.write(seen.decode("utf-8", "replace") + "exit=%d\n" % code)
            """#
        let result = try await ChildProcess.runAsync(
            "/usr/bin/python3", ["-c", script, String(timeout), executable] + arguments, environment: environment, timeout: timeout + 60)
        var lines = result.out.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map(String.init)
        guard let last = lines.popLast(), last.hasPrefix("exit="), let status = Int(last.dropFirst(5)) else {
            throw StderrOnATerminalError(output: result.out + result.err)
        }
        return (lines, status)
    }
}

/// The terminal's script did not say how the command ended.
public struct StderrOnATerminalError: Error, CustomStringConvertible {
    public let output: String
    public var description: String { "no exit status from the pty script: \(output)" }
}
