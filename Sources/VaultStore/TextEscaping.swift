// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Makes text from servers, keyrings and other programs safe to show on a terminal.
///
/// Control characters (C0, DEL, C1), the line and paragraph separators, and the
/// zero-width and bidirectional-override characters are
/// replaced by visible escapes (`\n`, `\t`, `\r`, `\x1b`, `\u{202e}`), so an error
/// message or a label cannot move the cursor, recolour the screen, set the window
/// title, or make text read backwards. A backslash is shown as `\\`, so every escape
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
        case 0x200B...0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // zero-width and bidi marks, overrides
        case 0x2028, 0x2029: true  // line and paragraph separators
        default: false
        }
    }
}
