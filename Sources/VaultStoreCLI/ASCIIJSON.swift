// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// JSON output that is plain ASCII: every character outside printable ASCII is written
/// as a `\uXXXX` escape (surrogate pairs above U+FFFF). The JSON means the same, but text a
/// server or another program chose (C1 controls such as U+009B, bidi overrides, line
/// separators) cannot reach a terminal raw.
package enum ASCIIJSON {
    /// `json` (valid JSON text, as an encoder wrote it: control characters inside strings
    /// already escaped) with every non-ASCII character and DEL escaped; the whitespace
    /// between tokens (tab, newline, carriage return) is kept.
    package static func escaped(_ json: String) -> String {
        var result = ""
        result.reserveCapacity(json.utf8.count)
        for scalar in json.unicodeScalars {
            if (scalar.value >= 0x20 && scalar.value < 0x7F) || scalar == "\n" || scalar == "\t" || scalar == "\r" {
                result.unicodeScalars.append(scalar)
            } else {
                for unit in String(scalar).utf16 { result += "\\u" + hex(unit) }
            }
        }
        return result
    }

    private static func hex(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
