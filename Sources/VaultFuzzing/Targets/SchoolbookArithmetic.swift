// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Slow, obvious big-number arithmetic on little-endian `UInt32` limbs: schoolbook
/// multiplication, long division (Knuth's algorithm D) and square-and-multiply. The
/// reference the `dh-session` target holds the provider's Montgomery exponentiation to;
/// it shares no code with it, and branches on every value (it is never given a secret).
enum SchoolbookArithmetic {
    /// The limbs of big-endian bytes, without leading zero limbs (zero: no limbs).
    static func limbs(bigEndian bytes: [UInt8]) -> [UInt32] {
        var limbs = [UInt32](repeating: 0, count: (bytes.count + 3) / 4)
        for (position, byte) in bytes.reversed().enumerated() {
            limbs[position / 4] |= UInt32(byte) << (8 * UInt32(position % 4))
        }
        return trimmed(limbs)
    }

    /// Big-endian bytes of `limbs`, padded on the left to `byteCount` (which must hold them).
    static func bigEndian(_ limbs: [UInt32], byteCount: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: byteCount)
        for position in 0..<min(byteCount, 4 * limbs.count) {
            bytes[byteCount - 1 - position] = UInt8(truncatingIfNeeded: limbs[position / 4] >> (8 * UInt32(position % 4)))
        }
        return bytes
    }

    static func trimmed(_ limbs: [UInt32]) -> [UInt32] {
        var result = limbs
        while result.last == 0 { result.removeLast() }
        return result
    }

    /// -1, 0 or 1 as a is below, equal to or above b.
    static func compare(_ a: [UInt32], _ b: [UInt32]) -> Int {
        var index = max(a.count, b.count) - 1
        while index >= 0 {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            if x != y { return x < y ? -1 : 1 }
            index -= 1
        }
        return 0
    }

    /// a × b.
    static func multiply(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        guard !a.isEmpty, !b.isEmpty else { return [] }
        var product = [UInt32](repeating: 0, count: a.count + b.count)
        for i in 0..<a.count {
            var carry: UInt64 = 0
            for j in 0..<b.count {
                let sum = UInt64(a[i]) * UInt64(b[j]) + UInt64(product[i + j]) + carry
                product[i + j] = UInt32(truncatingIfNeeded: sum)
                carry = sum >> 32
            }
            product[i + b.count] = UInt32(truncatingIfNeeded: carry)
        }
        return trimmed(product)
    }

    /// u mod v, for v of at least two limbs (Knuth, TAOCP vol. 2, 4.3.1, algorithm D).
    static func remainder(_ u: [UInt32], _ v: [UInt32]) -> [UInt32] {
        let u = trimmed(u)
        let v = trimmed(v)
        precondition(v.count >= 2, "the reference divides by numbers of two limbs or more")
        guard compare(u, v) >= 0 else { return u }
        let n = v.count
        let shift = UInt64(v[n - 1].leadingZeroBitCount)
        let divisor = shiftedLeft(v, shift, count: n)
        var rest = shiftedLeft(u, shift, count: u.count + 1)
        let top = UInt64(divisor[n - 1])
        let next = UInt64(divisor[n - 2])
        for j in stride(from: rest.count - n - 1, through: 0, by: -1) {
            let numerator = UInt64(rest[j + n]) << 32 | UInt64(rest[j + n - 1])
            var estimate = numerator / top
            var partial = numerator % top
            while estimate >= 1 << 32 || estimate * next > (partial << 32 | UInt64(rest[j + n - 2])) {
                estimate -= 1
                partial += top
                if partial >= 1 << 32 { break }
            }
            var borrow: Int64 = 0
            var carry: UInt64 = 0
            for i in 0..<n {
                let product = estimate * UInt64(divisor[i]) + carry
                carry = product >> 32
                let difference = Int64(rest[i + j]) - borrow - Int64(product & 0xFFFF_FFFF)
                rest[i + j] = UInt32(truncatingIfNeeded: difference)
                borrow = difference < 0 ? 1 : 0
            }
            let difference = Int64(rest[j + n]) - borrow - Int64(carry)
            rest[j + n] = UInt32(truncatingIfNeeded: difference)
            if difference < 0 {
                // The estimate was one too large: add the divisor back once.
                var sumCarry: UInt64 = 0
                for i in 0..<n {
                    let sum = UInt64(rest[i + j]) + UInt64(divisor[i]) + sumCarry
                    rest[i + j] = UInt32(truncatingIfNeeded: sum)
                    sumCarry = sum >> 32
                }
                rest[j + n] = UInt32(truncatingIfNeeded: UInt64(rest[j + n]) + sumCarry)
            }
        }
        return trimmed(shiftedRight(Array(rest.prefix(n)), shift))
    }

    /// base^exponent mod modulus, left to right, one bit at a time.
    static func power(_ base: [UInt32], exponent: [UInt8], modulus: [UInt32]) -> [UInt32] {
        let base = remainder(base, modulus)
        var result: [UInt32] = [1]
        for byte in exponent {
            for bit in stride(from: 7, through: 0, by: -1) {
                result = remainder(multiply(result, result), modulus)
                if (byte >> UInt8(bit)) & 1 == 1 { result = remainder(multiply(result, base), modulus) }
            }
        }
        return trimmed(result)
    }

    /// a × 2^shift (shift below 32) in `count` limbs (which must hold it).
    private static func shiftedLeft(_ a: [UInt32], _ shift: UInt64, count: Int) -> [UInt32] {
        var result = [UInt32](repeating: 0, count: count)
        for i in 0..<count {
            let low = i < a.count ? UInt64(a[i]) << shift : 0
            let high = i > 0 && i - 1 < a.count ? UInt64(a[i - 1]) >> (32 - shift) : 0
            result[i] = UInt32(truncatingIfNeeded: low | high)
        }
        return result
    }

    /// a ÷ 2^shift (shift below 32).
    private static func shiftedRight(_ a: [UInt32], _ shift: UInt64) -> [UInt32] {
        var result = [UInt32](repeating: 0, count: a.count)
        for i in 0..<a.count {
            let high = i + 1 < a.count ? UInt64(a[i + 1]) << (32 - shift) : 0
            result[i] = UInt32(truncatingIfNeeded: UInt64(a[i]) >> shift | high)
        }
        return result
    }
}
