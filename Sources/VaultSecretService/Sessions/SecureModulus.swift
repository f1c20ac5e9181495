// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CGMP

/// Modular exponentiation for one odd modulus by GMP's `mpn_sec_powm`, the exponentiation
/// GMP documents as side-channel silent: its time and memory accesses depend on the
/// operands' sizes (the exponent's length in bits, as given), never on their values. The
/// exponent is the DH session's private key.
///
/// Numbers are big-endian bytes outside, GMP's little-endian limbs inside; the limbs that
/// held the exponent, the result and GMP's scratch space are zeroed before they are freed.
/// (It replaced a Montgomery exponentiation of our own: a vetted library, not a reviewer's
/// reading of Swift that no tool checks for constant time, issue 39.)
package struct SecureModulus: Sendable {
    /// The modulus, little-endian limbs, the top one not zero.
    private let limbs: [mp_limb_t]
    /// The modulus's length in bytes, as given: results are padded to it.
    let byteCount: Int

    /// A modulus from its big-endian bytes; it must be odd (the caller's constant, so a
    /// violation is a programming error).
    package init(bigEndian bytes: [UInt8]) {
        var limbs = Self.limbs(bigEndian: bytes)
        while limbs.count > 1, limbs.last == 0 { limbs.removeLast() }
        precondition(limbs[0] & 1 == 1, "the modulus is odd")
        self.limbs = limbs
        byteCount = bytes.count
    }

    /// base^exponent mod modulus, big-endian, padded to the modulus's byte count. `base` and
    /// `exponent` are big-endian of any length; the exponent's length (8 bits a byte, at
    /// least one byte), never its value, decides the running time. A base of zero gives 0
    /// (1 for an exponent of zero), without GMP, which requires a base above zero.
    package func power(_ base: [UInt8], exponent: [UInt8]) -> [UInt8] {
        let exponent = exponent.isEmpty ? [0] : exponent
        var exponentLimbs = Self.limbs(bigEndian: exponent)
        defer { Self.zero(&exponentLimbs) }
        let n = limbs.count
        var result = [mp_limb_t](repeating: 0, count: n)
        defer { Self.zero(&result) }
        let baseLimbs = Self.limbs(bigEndian: base)
        if baseLimbs.allSatisfy({ $0 == 0 }) {
            // The base is the peer's public key (public), and never zero in a session: the
            // provider refuses keys below 2 before it gets here.
            if exponentLimbs.allSatisfy({ $0 == 0 }), n > 1 || limbs[0] > 1 { result[0] = 1 }
            return Self.bigEndian(result, byteCount: byteCount)
        }
        let exponentBits = mp_bitcnt_t(exponent.count * 8)
        var scratch = [mp_limb_t](repeating: 0, count: Int(__gmpn_sec_powm_itch(baseLimbs.count, exponentBits, n)))
        defer { Self.zero(&scratch) }
        __gmpn_sec_powm(&result, baseLimbs, baseLimbs.count, exponentLimbs, exponentBits, limbs, n, &scratch)
        return Self.bigEndian(result, byteCount: byteCount)
    }

    /// Little-endian limbs of big-endian `bytes` (at least one limb).
    static func limbs(bigEndian bytes: [UInt8]) -> [mp_limb_t] {
        let width = MemoryLayout<mp_limb_t>.size
        var limbs = [mp_limb_t](repeating: 0, count: max(1, (bytes.count + width - 1) / width))
        for (index, byte) in bytes.reversed().enumerated() {
            limbs[index / width] |= mp_limb_t(byte) << (8 * (index % width))
        }
        return limbs
    }

    /// `limbs` as big-endian bytes, `byteCount` of them (higher limbs beyond that are zero).
    static func bigEndian(_ limbs: [mp_limb_t], byteCount: Int) -> [UInt8] {
        let width = MemoryLayout<mp_limb_t>.size
        return (0..<byteCount).reversed().map { index in
            index / width < limbs.count ? UInt8(truncatingIfNeeded: limbs[index / width] >> (8 * (index % width))) : 0
        }
    }

    /// Overwrites `limbs` in place (they held a secret).
    private static func zero(_ limbs: inout [mp_limb_t]) {
        limbs.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices { buffer[index] = 0 }
        }
    }
}
