// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultStore
import VaultTestSupport

@Suite("Hex: the one hexadecimal helper", .offThePool)
struct HexTests {
    @Test("every byte out in lower case, two digits each, and back in either case")
    func roundTrip() {
        let all = (0...255).map(UInt8.init)
        let text = Hex.encode(all)
        #expect(text.utf8.count == 512 && text.hasPrefix("000102") && text.hasSuffix("fdfeff"))
        #expect(Hex.decode(text) == all)
        #expect(Hex.decode(text.uppercased()) == all)
        #expect(Hex.encode([]) == "" && Hex.decode("") == [])
    }

    @Test("an odd count of digits or any other character is nil")
    func refusals() {
        for text in ["0", "abc", "0g", "zz", " 00", "00 ", "0x00", "é0", "٠٠"] {
            #expect(Hex.decode(text) == nil, "\(text)")
        }
    }
}
