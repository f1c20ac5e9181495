// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

/// A word of a command that vault tells a person to run, written so that a POSIX shell
/// reads it back as it is: as it is when it has only characters no shell treats specially,
/// else in single quotes. Control characters are escaped first (``TextEscaping``): a message
/// never writes one to the terminal.
enum ShellWord {
    /// `word`, quoted for a shell when it needs it; an empty word is `''`.
    static func quoted(_ word: String) -> String {
        let text = TextEscaping.escaped(word)
        let plain =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "@%+=:,./_-".unicodeScalars.contains(scalar))
            }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
