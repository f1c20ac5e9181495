import ArgumentParser
import Foundation
import VaultStore

/// Output helpers: exact bytes to stdout, one-line messages to stderr.
enum Terminal {
    static func write(_ bytes: [UInt8]) {
        FileHandle.standardOutput.write(Data(bytes))
    }

    static func print(_ line: String) {
        write(Array((line + "\n").utf8))
    }

    /// One line on stderr, prefixed with `vault: `. Control characters (newlines, escape
    /// sequences from a server's message or a keyring label) are shown escaped, so an
    /// error stays one line and nothing reaches the terminal raw.
    static func note(_ message: String) {
        FileHandle.standardError.write(Data("vault: \(TextEscaping.escaped(message))\n".utf8))
    }

    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
}

/// Runs `body`; a `VaultError` becomes one line on stderr and its exit code.
func reportingErrors(_ body: () throws(VaultError) -> Void) throws(ExitCode) {
    do {
        try body()
    } catch {
        Terminal.note(error.description)
        throw ExitCode(error.exitCode)
    }
}
