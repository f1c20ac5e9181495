// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto
import CryptoExtras
import Foundation
import Testing
import VaultStore
import VaultTestSupport

/// What the Secret Service's DH session relies on from swift-crypto's `AES._CBC`, an
/// underscored API that may change without notice: PKCS#7 padding added on encryption (a
/// whole block of 16s for whole blocks), checked and removed on decryption, and a padding
/// that is not PKCS#7 refused. An update that changes any of it fails here first.
@Suite(.offThePool) struct AESCBCPaddingTests {
    let key = SymmetricKey(data: [UInt8](repeating: 7, count: 16))
    let iv = [UInt8](0..<16)

    func encrypt(_ plain: [UInt8], noPadding: Bool) throws -> [UInt8] {
        [UInt8](try AES._CBC.encrypt(plain, using: key, iv: AES._CBC.IV(ivBytes: iv), noPadding: noPadding))
    }

    func decrypt(_ value: [UInt8], noPadding: Bool) throws -> [UInt8] {
        [UInt8](try AES._CBC.decrypt(value, using: key, iv: AES._CBC.IV(ivBytes: iv), noPadding: noPadding))
    }

    @Test("encryption adds PKCS#7 padding: n bytes of value n, a whole block for whole blocks", arguments: [0, 1, 15, 16, 17, 31, 32])
    func paddingAdded(length: Int) throws {
        let plain = [UInt8](repeating: 0x41, count: length)
        let padding = 16 - length % 16
        let padded = plain + [UInt8](repeating: UInt8(padding), count: padding)
        #expect(try encrypt(plain, noPadding: false) == encrypt(padded, noPadding: true))
        #expect(try decrypt(encrypt(plain, noPadding: false), noPadding: false) == plain)
    }

    @Test(
        "decryption refuses a padding that is not PKCS#7",
        arguments: [
            [UInt8](repeating: 0, count: 16), [UInt8](repeating: 17, count: 16),
            [UInt8](repeating: 0x41, count: 14) + [3, 2], [UInt8](repeating: 0x41, count: 15) + [0],
        ])
    func badPaddingRefused(block: [UInt8]) throws {
        let value = try encrypt(block, noPadding: true)
        #expect(throws: (any Error).self) { try decrypt(value, noPadding: false) }
    }

    @Test("a known answer: AES-128-CBC of 16 zero bytes under a zero key and IV (FIPS-197's cipher, one block)")
    func knownAnswer() throws {
        let zero = SymmetricKey(data: [UInt8](repeating: 0, count: 16))
        let value = try AES._CBC.encrypt(
            [UInt8](repeating: 0, count: 16), using: zero, iv: AES._CBC.IV(ivBytes: [UInt8](repeating: 0, count: 16)), noPadding: true)
        #expect(Hex.encode(value) == "66e94bd4ef8a2c3b884cfa59ca342b2e")
    }
}
