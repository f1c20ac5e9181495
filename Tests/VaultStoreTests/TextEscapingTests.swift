// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultStore
import VaultTestSupport

/// Issue 23 §6.2: invisible characters that change how text reads (format characters,
/// bidirectional controls, tags) never reach a terminal raw.
@Suite("SmallPromises: terminal escaping covers every format and bidi control character", .offThePool)
struct TextEscapingTests {
    @Test("the characters that used to pass raw: U+061C, U+2060–2064, U+FEFF, U+00AD, tag characters")
    func formerlyRaw() {
        let cases: [(Unicode.Scalar, String)] = [
            ("\u{061C}", "\\u{61c}"), ("\u{2060}", "\\u{2060}"), ("\u{2061}", "\\u{2061}"), ("\u{2062}", "\\u{2062}"),
            ("\u{2063}", "\\u{2063}"), ("\u{2064}", "\\u{2064}"), ("\u{FEFF}", "\\u{feff}"), ("\u{00AD}", "\\xad"),
            ("\u{E0000}", "\\u{e0000}"), ("\u{E0001}", "\\u{e0001}"), ("\u{E0041}", "\\u{e0041}"), ("\u{E007F}", "\\u{e007f}"),
        ]
        for (scalar, escape) in cases {
            let text = "a" + String(Character(scalar)) + "b"
            #expect(TextEscaping.escaped(text) == "a\(escape)b", "U+\(String(scalar.value, radix: 16))")
            #expect(TextEscaping.escaped(text, keepingLines: true) == "a\(escape)b", "U+\(String(scalar.value, radix: 16))")
        }
    }

    @Test("every scalar of general category Cf, every Bidi_Control and the whole tag block is escaped")
    func everyFormatCharacter() {
        var checked = 0
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let properties = scalar.properties
            guard properties.generalCategory == .format || properties.isBidiControl || (0xE0000...0xE007F).contains(value) else {
                continue
            }
            checked += 1
            let escaped = TextEscaping.escaped(String(Character(scalar)))
            #expect(!escaped.unicodeScalars.contains(scalar), "U+\(String(value, radix: 16)) passes raw")
        }
        #expect(checked > 150, "the Unicode tables know the format characters: \(checked)")
    }

    @Test("ordinary text, accents, other scripts and emoji stay as they are")
    func ordinaryText() {
        for text in ["plain ümlaut text", "日本語のテキスト", "مرحبا", "emoji 🙂👍", "a-b_c.d@e"] {
            #expect(TextEscaping.escaped(text) == text)
        }
    }
}
