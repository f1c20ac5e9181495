// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CGMP

/// The DH fuzz target's reference: GMP's ordinary `mpz` integers (`mpz_powm`, a different
/// algorithm from the session's `mpn_sec_powm`, fast and not constant-time), on big-endian
/// bytes.
enum ReferenceArithmetic {
    /// `bytes` (big-endian) as a fresh `mpz_t`; the caller clears it.
    private static func integer(_ bytes: [UInt8]) -> mpz_t {
        var value = mpz_t()
        __gmpz_init(&value)
        if !bytes.isEmpty { __gmpz_import(&value, bytes.count, 1, 1, 1, 0, bytes) }
        return value
    }

    /// -1, 0 or 1 as `a` (big-endian bytes) is below, equal to or above `b`.
    static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var x = integer(a)
        var y = integer(b)
        defer {
            __gmpz_clear(&x)
            __gmpz_clear(&y)
        }
        return Int(__gmpz_cmp(&x, &y).signum())
    }

    /// base^exponent mod modulus, big-endian, padded to `byteCount`.
    static func power(_ base: [UInt8], exponent: [UInt8], modulus: [UInt8], byteCount: Int) -> [UInt8] {
        var b = integer(base)
        var e = integer(exponent)
        var m = integer(modulus)
        var r = integer([])
        defer {
            __gmpz_clear(&b)
            __gmpz_clear(&e)
            __gmpz_clear(&m)
            __gmpz_clear(&r)
        }
        __gmpz_powm(&r, &b, &e, &m)
        var out = [UInt8](repeating: 0, count: byteCount)
        var written = 0
        out.withUnsafeMutableBytes { _ = __gmpz_export($0.baseAddress, &written, 1, 1, 1, 0, &r) }
        // mpz_export writes the significant bytes first: move them to the end.
        return [UInt8](repeating: 0, count: byteCount - written) + out.prefix(written)
    }
}
