// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultTestSupport

@testable import VaultSecretService

/// The DH session's big-number arithmetic (GMP's `mpn_sec_powm`), checked against Python's `pow` run as a child
/// process on the same inputs (a real, independent peer), and the group's constant against
/// RFC 2409's formula as Python computes it.
@Suite("DH: modular arithmetic", .cpuBound)
struct DHArithmeticTests {
    /// `pow(b, e, m)` for each (m, b, e), by /usr/bin/python3, padded to m's length.
    static func pythonPowers(_ cases: [(modulus: [UInt8], base: [UInt8], exponent: [UInt8])]) throws -> [[UInt8]] {
        let program = """
            import sys
            for line in sys.stdin:
                words = line.split()
                m, b, e = (int(x, 16) if x != '-' else 0 for x in words)
                print(pow(b, e, m).to_bytes(len(words[0]) // 2, 'big').hex())
            """
        let input =
            cases.map { c in
                [c.modulus, c.base, c.exponent].map { $0.isEmpty ? "-" : Hex.encode($0) }.joined(separator: " ")
            }.joined(separator: "\n") + "\n"
        let result = try ChildProcess.run("/usr/bin/python3", ["-c", program], stdin: Data(input.utf8), timeout: 120)
        try #require(result.status == 0, "\(result.err)")
        return result.out.split(separator: "\n").compactMap { Hex.decode($0) }
    }

    @Test("the prime is RFC 2409's Second Oakley Group, computed from its formula by the Python client")
    func prime() throws {
        let result = try ChildProcess.run(DHTestSupport.client, ["prime"], timeout: 60)
        try #require(result.status == 0, "\(result.err)")
        #expect(Hex.decode(result.out.trimmingCharacters(in: .whitespacesAndNewlines)) == OakleyGroup2.prime)
        #expect(OakleyGroup2.prime.count == 128 && OakleyGroup2.generator == [2])
    }

    @Test("g^x and y^x mod p agree with Python's pow, edge cases and random ones")
    func groupPowers() throws {
        let p = OakleyGroup2.prime
        var pMinusOne = p
        pMinusOne[127] -= 1
        let ones = [UInt8](repeating: 0xFF, count: 128)
        var cases: [(modulus: [UInt8], base: [UInt8], exponent: [UInt8])] = [
            (p, [2], []), (p, [2], [0]), (p, [2], [1]), (p, [2], [2]), (p, [0], [5]), (p, [1], ones), (p, pMinusOne, [2]),
            (p, pMinusOne, [3]), (p, pMinusOne, ones), (p, [2], ones), (p, [2], pMinusOne), (p, [3], [1] + [UInt8](repeating: 0, count: 127)),
        ]
        for _ in 0..<12 {
            var base = DHTestSupport.random(128)
            base[0] &= 0x7F
            cases.append((p, base, DHTestSupport.random(128)))
            cases.append((p, [2], DHTestSupport.random(Int.random(in: 1...130))))
        }
        let expected = try Self.pythonPowers(cases)
        try #require(expected.count == cases.count)
        for (index, c) in cases.enumerated() {
            #expect(OakleyGroup2.modulus.power(c.base, exponent: c.exponent) == expected[index], "case \(index)")
        }
    }

    @Test("other odd moduli, 1 to 256 bytes, agree with Python's pow too")
    func otherModuli() throws {
        var cases: [(modulus: [UInt8], base: [UInt8], exponent: [UInt8])] = []
        for size in [1, 3, 4, 5, 8, 9, 31, 64, 100, 128, 256] {
            for _ in 0..<3 {
                var modulus = DHTestSupport.random(size)
                modulus[0] |= size == 1 ? 0x03 : 0x80 >> UInt8.random(in: 0...7)
                modulus[size - 1] |= 1
                if modulus == [1] { modulus = [3] }
                var base = DHTestSupport.random(size)
                base[0] = 0  // below the modulus
                cases.append((modulus, base, DHTestSupport.random(Int.random(in: 1...40))))
            }
        }
        cases.append(([0xFF, 0xFF, 0xFF, 0xFF], [0xFF, 0xFF, 0xFF, 0xFE], [0xFF]))
        let expected = try Self.pythonPowers(cases)
        try #require(expected.count == cases.count)
        for (index, c) in cases.enumerated() {
            #expect(SecureModulus(bigEndian: c.modulus).power(c.base, exponent: c.exponent) == expected[index], "case \(index) \(c)")
        }
    }

    @Test("a public key from a fresh private key is g^x: what Python computes from the same x")
    func keyPair() throws {
        let keys = (0..<4).map { _ in OakleyGroup2.makePrivateKey() }
        #expect(Set(keys).count == 4 && keys.allSatisfy { $0.count == OakleyGroup2.privateKeyByteCount })
        let expected = try Self.pythonPowers(keys.map { (OakleyGroup2.prime, [2], $0) })
        #expect(keys.map { OakleyGroup2.publicKey(privateKey: $0) } == expected)
    }

    @Test("peer keys: 0, 1, p - 1, p and above, and over 128 significant bytes are refused")
    func peerKeys() {
        let p = OakleyGroup2.prime
        var pMinusOne = p
        pMinusOne[127] -= 1
        var pMinusTwo = p
        pMinusTwo[127] -= 2
        #expect(OakleyGroup2.validatedPeerKey([]) == nil)
        #expect(OakleyGroup2.validatedPeerKey([0]) == nil)
        #expect(OakleyGroup2.validatedPeerKey([1]) == nil)
        #expect(OakleyGroup2.validatedPeerKey([UInt8](repeating: 0, count: 127) + [1]) == nil)
        #expect(OakleyGroup2.validatedPeerKey(pMinusOne) == nil)
        #expect(OakleyGroup2.validatedPeerKey(p) == nil)
        #expect(OakleyGroup2.validatedPeerKey([UInt8](repeating: 0xFF, count: 128)) == nil)
        #expect(OakleyGroup2.validatedPeerKey([1] + [UInt8](repeating: 0, count: 128)) == nil)
        #expect(OakleyGroup2.validatedPeerKey([0, 0] + pMinusTwo) == nil, "130 bytes")
        #expect(OakleyGroup2.validatedPeerKey([2]) == [UInt8](repeating: 0, count: 127) + [2])
        #expect(OakleyGroup2.validatedPeerKey(pMinusTwo) == pMinusTwo)
        #expect(OakleyGroup2.validatedPeerKey([0] + pMinusTwo) == pMinusTwo, "GnuTLS's leading zero")
        #expect(OakleyGroup2.validatedPeerKey([0x12, 0x34]) == [UInt8](repeating: 0, count: 126) + [0x12, 0x34])
    }
}
