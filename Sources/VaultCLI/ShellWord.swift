// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

/// A word of a command that vault tells a person to run, written so that a POSIX shell
/// reads it back as exactly that word once the message is printed: as it is when it has
/// only characters no shell treats specially, else in single quotes, a `'` inside written
/// `'"'"'`. No backslash is ever written: every message escapes backslashes and control
/// characters when it is printed (``TextEscaping``), which would turn `'\''` into `'\\''`
/// and end the quoting early (attack review 54: a pasted hint ran `id`).
enum ShellWord {
    /// `word`, quoted for a shell when it needs it; nil for a word that no printed message
    /// can carry exactly (one with a backslash, or a character ``TextEscaping`` escapes).
    static func quoted(_ word: String) -> String? {
        guard !word.isEmpty, !word.contains("\\"), TextEscaping.escaped(word) == word else { return nil }
        let plain = word.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "@%+=:,./_-".unicodeScalars.contains(scalar))
        }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: #"'"'"'"#) + "'"
    }

    /// `vault login SERVER ACCOUNT` for the account, each word quoted; `--server=` and
    /// `--account=` when a name starts with `-` (else the parser would read it as an
    /// option). Nil when a name cannot be printed exactly.
    static func loginCommand(server: String, account: String) -> String? {
        if server.hasPrefix("-") || account.hasPrefix("-") {
            guard let server = quoted("--server=" + server), let account = quoted("--account=" + account) else { return nil }
            return "vault login \(server) \(account)"
        }
        guard let server = quoted(server), let account = quoted(account) else { return nil }
        return "vault login \(server) \(account)"
    }
}
