import Foundation
import VaultStore

/// Reads the secret of `vault save`: a no-echo prompt when stdin is a terminal, else all
/// of stdin with one trailing newline dropped.
enum SecretInput {
    /// The most a secret may hold.
    static let maximumSize = 1 << 20

    static func read(prompt: String) throws(VaultError) -> Secret {
        let secret: Secret
        if Terminal.stdinIsTerminal {
            secret = try TerminalPrompt.readSecret(prompt: prompt)
        } else {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { Foundation.read(STDIN_FILENO, $0.baseAddress!, $0.count) }
                if n < 0, errno == EINTR { continue }
                if n < 0 { throw .invalidInput("cannot read the secret from standard input") }
                if n == 0 { break }
                bytes.append(contentsOf: buffer[0..<n])
                guard bytes.count <= maximumSize else { throw .invalidInput("the secret is larger than 1 MiB") }
            }
            secret = Secret(bytes: PassphraseSource.dropOneNewline(bytes))
        }
        guard !secret.isEmpty else { throw .invalidInput("the secret is empty (pipe it on standard input)") }
        return secret
    }
}
