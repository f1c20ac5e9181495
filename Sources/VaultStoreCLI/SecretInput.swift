// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import FoundationEssentials
import VaultStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads the secret of `vault save`: a no-echo prompt when stdin is a terminal, else all
/// of stdin with one trailing newline dropped.
package enum SecretInput {
    /// The most a secret may hold.
    package static let maximumSize = 1 << 20

    /// The secret; from a pipe, all of it, which must end `within` that long when given.
    package static func read(prompt: String, within: Duration? = nil) throws(VaultError) -> Secret {
        let secret: Secret
        if Terminal.stdinIsTerminal {
            secret = try TerminalPrompt.readSecret(prompt: prompt)
        } else {
            // Room for one trailing newline (or CRLF) after a secret of the largest size.
            let bytes = try BoundedRead.all(
                fd: STDIN_FILENO, limit: maximumSize + 2, what: "the secret on standard input", within: within)
            secret = Secret(bytes: PassphraseSource.dropOneNewline(bytes))
            guard secret.bytes.count <= maximumSize else { throw .invalidInput("the secret is larger than 1 MiB") }
        }
        guard !secret.isEmpty else {
            // At a terminal nothing was typed; from a pipe, nothing came.
            throw .invalidInput(Terminal.stdinIsTerminal ? "the secret is empty: nothing was typed" : "the secret on standard input is empty")
        }
        return secret
    }
}
