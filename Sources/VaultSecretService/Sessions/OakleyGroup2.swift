// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The Second Oakley Group of RFC 2409 (section 6.2): the 1024-bit MODP prime
/// p = 2^1024 − 2^960 − 1 + 2^64 × (⌊2^894 π⌋ + 129093) with generator 2, the group of the
/// Secret Service's `dh-ietf1024-sha256-aes128-cbc-pkcs7` (libsecret's
/// "ietf-ike-grp-modp-1024", SecretStorage's `DH_PRIME_1024`).
package enum OakleyGroup2 {
    /// Bytes in a public key, a private key and the shared secret (big-endian, padded).
    package static let byteCount = 128

    /// p, big-endian (checked against the RFC's formula and SecretStorage's constant by the tests).
    package static let prime: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xC9, 0x0F, 0xDA, 0xA2, 0x21, 0x68, 0xC2, 0x34,
        0xC4, 0xC6, 0x62, 0x8B, 0x80, 0xDC, 0x1C, 0xD1, 0x29, 0x02, 0x4E, 0x08, 0x8A, 0x67, 0xCC, 0x74,
        0x02, 0x0B, 0xBE, 0xA6, 0x3B, 0x13, 0x9B, 0x22, 0x51, 0x4A, 0x08, 0x79, 0x8E, 0x34, 0x04, 0xDD,
        0xEF, 0x95, 0x19, 0xB3, 0xCD, 0x3A, 0x43, 0x1B, 0x30, 0x2B, 0x0A, 0x6D, 0xF2, 0x5F, 0x14, 0x37,
        0x4F, 0xE1, 0x35, 0x6D, 0x6D, 0x51, 0xC2, 0x45, 0xE4, 0x85, 0xB5, 0x76, 0x62, 0x5E, 0x7E, 0xC6,
        0xF4, 0x4C, 0x42, 0xE9, 0xA6, 0x37, 0xED, 0x6B, 0x0B, 0xFF, 0x5C, 0xB6, 0xF4, 0x06, 0xB7, 0xED,
        0xEE, 0x38, 0x6B, 0xFB, 0x5A, 0x89, 0x9F, 0xA5, 0xAE, 0x9F, 0x24, 0x11, 0x7C, 0x4B, 0x1F, 0xE6,
        0x49, 0x28, 0x66, 0x51, 0xEC, 0xE6, 0x53, 0x81, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    ]

    /// The generator, 2.
    static let generator: [UInt8] = [2]

    /// p, ready for exponentiation (GMP's side-channel-silent `mpn_sec_powm`).
    package static let modulus = SecureModulus(bigEndian: prime)

    /// Bytes in a private exponent: 256 bits. The group gives about 80 bits of security, and
    /// an exponent of twice the strength is enough (RFC 7919 §5.2, NIST SP 800-56A's
    /// short exponents); a full 1023-bit one made every OpenSession four times slower
    /// (each exponentiation runs over every bit of the exponent, in constant time).
    static let privateKeyByteCount = 32

    /// A fresh private exponent: 256 random bits, at least 2.
    static func makePrivateKey() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        while true {
            let key = RandomBytes.make(privateKeyByteCount, using: &generator)
            if key.dropLast().contains(where: { $0 != 0 }) || key[privateKeyByteCount - 1] > 1 { return key }
        }
    }

    /// g^x mod p, 128 bytes big-endian.
    static func publicKey(privateKey: [UInt8]) -> [UInt8] {
        modulus.power(generator, exponent: privateKey)
    }

    /// A peer's public key as 128 bytes, if it is one: at most 128 significant bytes (any
    /// number of leading zero bytes up to 129 bytes in all: GnuTLS-built libsecret adds one
    /// when the top bit is set), and 1 < y < p − 1 (refusing 0, 1 and p − 1, which would
    /// make the shared secret predictable, and p or more).
    package static func validatedPeerKey(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count <= byteCount + 1 else { return nil }
        let significant = bytes.drop(while: { $0 == 0 })
        guard significant.count <= byteCount else { return nil }
        let key = [UInt8](repeating: 0, count: byteCount - significant.count) + significant
        var two = [UInt8](repeating: 0, count: byteCount)
        two[byteCount - 1] = 2
        var primeMinusOne = prime
        primeMinusOne[byteCount - 1] -= 1  // p ends in 0xFF
        guard !key.lexicographicallyPrecedes(two), key.lexicographicallyPrecedes(primeMinusOne) else { return nil }
        return key
    }

    /// y^x mod p, 128 bytes big-endian, for a validated peer key y.
    static func sharedSecret(peerKey: [UInt8], privateKey: [UInt8]) -> [UInt8] {
        modulus.power(peerKey, exponent: privateKey)
    }
}
