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
public enum TerminalPrompt {
    /// True when this process has a controlling terminal to ask on.
    public static var isAvailable: Bool {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }

    /// Shows `prompt` on the terminal and reads one line without echo (the newline is
    /// dropped). Throws `.invalidInput` when there is no terminal or the input ends.
    public static func readSecret(prompt: String) throws(VaultError) -> Secret {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw .invalidInput("no terminal to ask for input on") }
        defer { close(fd) }
        var saved = termios()
        let hasAttributes = tcgetattr(fd, &saved) == 0
        if hasAttributes {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            silent.c_lflag |= tcflag_t(ICANON)
            _ = tcsetattr(fd, TCSAFLUSH, &silent)
        }
        defer {
            if hasAttributes {
                var restore = saved
                _ = tcsetattr(fd, TCSAFLUSH, &restore)
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
