// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Makes text from servers, keyrings and other programs safe to show on a terminal.
///
/// Control characters (C0, DEL, C1), the line and paragraph separators, every Unicode
/// format character (general category `Cf`: the zero-width characters, the soft hyphen,
/// the word joiner and invisible operators, the byte order mark, and the whole
/// `Bidi_Control` set, U+061C and the marks, embeddings, overrides and isolates), and the
/// tag characters (U+E0000–E007F, assigned or not) are replaced by visible escapes (`\n`,
/// `\t`, `\r`, `\x1b`, `\xad`, `\u{202e}`), so an error message or a label cannot move
/// the cursor, recolour the screen, set the window title, hide text, or make text read
/// backwards. A backslash is shown as `\\`, so every escape
/// reads back unambiguously. Everything else is kept as it is.
public enum TextEscaping {
    /// `text` with every control character escaped; with `keepingLines`, newlines and tabs
    /// are kept (a response body shown on a terminal), and a backslash is left alone.
    public static func escaped(_ text: String, keepingLines: Bool = false) -> String {
        func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
            if keepingLines, scalar == "\n" || scalar == "\t" || scalar == "\\" { return false }
            return Self.needsEscape(scalar)
        }
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\\": result += "\\\\"
            default:
                let hex = String(scalar.value, radix: 16)
                result += scalar.value < 0x100 ? "\\x" + (hex.count < 2 ? "0" + hex : hex) : "\\u{\(hex)}"
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x5C: true  // the backslash, so escapes stay unambiguous
        case 0x20...0x7E: false  // printable ASCII: the common case, decided without a table lookup
        case 0x2028, 0x2029: true  // line and paragraph separators
        case 0x2060...0x206F: true  // word joiner, invisible operators, isolates, deprecated format marks (U+2065 unassigned)
        case 0xE0000...0xE007F: true  // tag characters, the unassigned ones of the block too
        default: scalar.properties.generalCategory == .format  // Cf: soft hyphen, U+061C, zero-width, bidi, U+FEFF, ...
        }
    }
}
