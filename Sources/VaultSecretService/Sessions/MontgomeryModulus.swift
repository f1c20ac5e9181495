// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Modular exponentiation for one odd modulus, in Montgomery form: enough big-number
/// arithmetic for a Diffie-Hellman exchange, and nothing more.
///
/// - Numbers are big-endian bytes outside, little-endian 64-bit limbs inside; each product
///   is a full-width 128-bit one (`multipliedFullWidth`) and each sum reports its carry, so
///   every step is a flag-setting machine operation, never a branch (16 limbs for the
///   Secret Service's 1024-bit group: a quarter of the products 32-bit limbs took).
/// - ``power(_:exponent:)`` takes the same time and touches the same memory whatever the
///   exponent's bits: a fixed 4-bit window, a multiplication for every window (by one when
///   the window is zero), the table entry picked by masking every entry, and a final
///   subtraction chosen by a mask. The exponent is the private key.
/// - The modulus is public: setting up (`init`) may take branches on it.
package struct MontgomeryModulus: Sendable {
    /// Bits in a limb.
    static let limbBits = 64
    /// The modulus, little-endian limbs.
    let limbs: [UInt64]
    /// The modulus's length in bytes, as given: results are padded to it.
    let byteCount: Int
    /// -modulus⁻¹ mod 2^64.
    private let inverse: UInt64
    /// R mod modulus (one, in Montgomery form), R = 2^(64 × limb count).
    private let one: [UInt64]
    /// R² mod modulus (turns a number into Montgomery form).
    private let rSquared: [UInt64]

    /// A modulus from its big-endian bytes; it must be odd and above one (the caller's
    /// constant, so a violation is a programming error).
    init(bigEndian bytes: [UInt8]) {
        precondition(bytes.contains { $0 > 1 } || bytes.dropLast().contains { $0 != 0 }, "a Montgomery modulus is above one")
        let limbs = Self.limbs(bigEndian: bytes, count: (bytes.count + 7) / 8)
        precondition(limbs[0] & 1 == 1, "a Montgomery modulus is odd")
        self.limbs = limbs
        byteCount = bytes.count
        // Newton's iteration doubles the correct low bits each step: 1, 2, 4, ... 64.
        var inverse: UInt64 = 1
        for _ in 0..<6 { inverse = inverse &* (2 &- limbs[0] &* inverse) }
        self.inverse = 0 &- inverse
        // R mod m and R² mod m by doubling one, 64n then 64n more times (once per modulus).
        var value = [UInt64](repeating: 0, count: limbs.count)
        value[0] = 1
        for _ in 0..<(Self.limbBits * limbs.count) { value = Self.doubled(value, modulo: limbs) }
        one = value
        for _ in 0..<(Self.limbBits * limbs.count) { value = Self.doubled(value, modulo: limbs) }
        rSquared = value
    }

    /// base^exponent mod modulus, big-endian, padded to the modulus's byte count.
    /// `base` (big-endian, any length) must be below the modulus; `exponent` is big-endian of
    /// any length (its length, never its value, decides the running time).
    package func power(_ base: [UInt8], exponent: [UInt8]) -> [UInt8] {
        let n = limbs.count
        let baseLimbs = Self.limbs(bigEndian: base, count: n)
        precondition(Self.compare(baseLimbs, limbs) < 0, "the base is below the modulus")
        // One buffer for everything: the table (16 numbers), the result, the chosen entry, and
        // the multiplication's n + 2 limbs of work space. The hot loops use raw pointers and
        // `while`: in a debug build that is several times faster than arrays and ranges.
        let scratch = UnsafeMutablePointer<UInt64>.allocate(capacity: 19 * n + 2)
        scratch.initialize(repeating: 0, count: 19 * n + 2)
        defer {
            scratch.update(repeating: 0, count: 19 * n + 2)  // no trace of the exponent's powers
            scratch.deallocate()
        }
        let table = scratch
        let result = scratch + 16 * n
        let chosen = scratch + 17 * n
        let work = scratch + 18 * n
        return limbs.withUnsafeBufferPointer { modulus in
            let m = modulus.baseAddress!
            one.withUnsafeBufferPointer { table.update(from: $0.baseAddress!, count: n) }
            baseLimbs.withUnsafeBufferPointer { b in
                rSquared.withUnsafeBufferPointer { r2 in
                    multiply(table + n, b.baseAddress!, r2.baseAddress!, modulus: m, work: work)
                }
            }
            var k = 2
            while k < 16 {
                multiply(table + k * n, table + (k - 1) * n, table + n, modulus: m, work: work)
                k += 1
            }
            result.update(from: table, count: n)
            for byte in exponent {
                for nibble in [UInt64(byte >> 4), UInt64(byte & 0x0F)] {
                    var square = 0
                    while square < 4 {
                        multiply(result, result, result, modulus: m, work: work)
                        square += 1
                    }
                    Self.select(chosen, from: table, index: nibble, count: n)
                    multiply(result, result, chosen, modulus: m, work: work)
                }
            }
            // Out of Montgomery form: multiply by plain 1.
            chosen.update(repeating: 0, count: n)
            chosen[0] = 1
            multiply(result, result, chosen, modulus: m, work: work)
            return Self.bigEndian(Array(UnsafeBufferPointer(start: result, count: n)), byteCount: byteCount)
        }
    }

    /// a × b × R⁻¹ mod modulus, on arrays of limbs below the modulus (for tests).
    func multiply(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        let n = limbs.count
        var product = [UInt64](repeating: 0, count: n)
        var work = [UInt64](repeating: 0, count: n + 2)
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                limbs.withUnsafeBufferPointer { m in
                    product.withUnsafeMutableBufferPointer { p in
                        work.withUnsafeMutableBufferPointer { w in
                            multiply(p.baseAddress!, a.baseAddress!, b.baseAddress!, modulus: m.baseAddress!, work: w.baseAddress!)
                        }
                    }
                }
            }
        }
        return product
    }

    /// product = a × b × R⁻¹ mod modulus (a, b below the modulus; product may be a or b), by
    /// coarsely integrated operand scanning (CIOS): each outer step adds a × b[i], then the
    /// multiple of the modulus that clears the lowest limb, and shifts one limb down.
    /// `work` holds n + 2 limbs.
    private func multiply(
        _ product: UnsafeMutablePointer<UInt64>, _ a: UnsafePointer<UInt64>, _ b: UnsafePointer<UInt64>,
        modulus m: UnsafePointer<UInt64>, work t: UnsafeMutablePointer<UInt64>
    ) {
        let n = limbs.count
        let inverse = inverse
        t.update(repeating: 0, count: n + 2)
        var i = 0
        while i < n {
            // t += a × b[i]
            let bi = b[i]
            var carry: UInt64 = 0
            var j = 0
            while j < n {
                let (high, low) = a[j].multipliedFullWidth(by: bi)
                let (sum, c1) = low.addingReportingOverflow(t[j])
                let (total, c2) = sum.addingReportingOverflow(carry)
                t[j] = total
                // high ≤ 2^64 − 2, so adding two carries never wraps.
                carry = high &+ Self.bit(c1) &+ Self.bit(c2)
                j &+= 1
            }
            let (top, c3) = t[n].addingReportingOverflow(carry)
            t[n] = top
            t[n + 1] = Self.bit(c3)
            // t += factor × m clears t[0]; then t shifts one limb down.
            let factor = t[0] &* inverse
            let (firstHigh, firstLow) = factor.multipliedFullWidth(by: m[0])
            carry = firstHigh &+ Self.bit(firstLow.addingReportingOverflow(t[0]).overflow)
            j = 1
            while j < n {
                let (high, low) = factor.multipliedFullWidth(by: m[j])
                let (sum, c1) = low.addingReportingOverflow(t[j])
                let (total, c2) = sum.addingReportingOverflow(carry)
                t[j &- 1] = total
                carry = high &+ Self.bit(c1) &+ Self.bit(c2)
                j &+= 1
            }
            let (last, c4) = t[n].addingReportingOverflow(carry)
            t[n &- 1] = last
            t[n] = t[n + 1] &+ Self.bit(c4)
            i &+= 1
        }
        // t < 2 × modulus: subtract the modulus when t[n] is set or no borrow is left, chosen
        // by a mask, not a branch. The difference goes to t[0..<n] after product gets t.
        var borrow: UInt64 = 0
        var j = 0
        while j < n {
            product[j] = t[j]
            let (difference, b1) = t[j].subtractingReportingOverflow(m[j])
            let (result, b2) = difference.subtractingReportingOverflow(borrow)
            t[j] = result
            borrow = Self.bit(b1) | Self.bit(b2)
            j &+= 1
        }
        let keep = 0 &- ((t[n] | (borrow ^ 1)) & 1)
        j = 0
        while j < n {
            product[j] = (t[j] & keep) | (product[j] & ~keep)
            j &+= 1
        }
    }

    /// A carry or borrow as 0 or 1, without a branch in any build (a Bool is one byte, 0 or 1).
    @inline(__always)
    private static func bit(_ flag: Bool) -> UInt64 { UInt64(unsafeBitCast(flag, to: UInt8.self)) }

    /// chosen = table[index] (16 entries of `count` limbs), reading every entry: no memory
    /// access depends on the index.
    private static func select(
        _ chosen: UnsafeMutablePointer<UInt64>, from table: UnsafePointer<UInt64>, index: UInt64, count: Int
    ) {
        chosen.update(repeating: 0, count: count)
        var k = 0
        while k < 16 {
            let difference = UInt64(truncatingIfNeeded: k) ^ index
            // All ones when difference == 0: only then does difference - 1 have its top bit set.
            let take = 0 &- (((difference &- 1) >> 63) & 1)
            let entry = table + k * count
            var j = 0
            while j < count {
                chosen[j] |= entry[j] & take
                j &+= 1
            }
            k &+= 1
        }
    }

    /// 2 × value mod modulus, for value below the modulus (setup only: branches).
    private static func doubled(_ value: [UInt64], modulo modulus: [UInt64]) -> [UInt64] {
        var result = value.map { $0 << 1 }
        for j in 1..<value.count { result[j] |= value[j - 1] >> 63 }
        let overflow = value[value.count - 1] >> 63
        if overflow == 1 || compare(result, modulus) >= 0 {
            var borrow = false
            for j in 0..<result.count {
                let (difference, b1) = result[j].subtractingReportingOverflow(modulus[j])
                let (final, b2) = difference.subtractingReportingOverflow(borrow ? 1 : 0)
                result[j] = final
                borrow = b1 || b2
            }
        }
        return result
    }

    /// -1, 0 or 1 as a is below, equal to or above b (same limb count; public values only).
    static func compare(_ a: [UInt64], _ b: [UInt64]) -> Int {
        for j in stride(from: a.count - 1, through: 0, by: -1) where a[j] != b[j] {
            return a[j] < b[j] ? -1 : 1
        }
        return 0
    }

    /// Little-endian 64-bit limbs of big-endian bytes; `count` limbs must hold the value.
    static func limbs(bigEndian bytes: [UInt8], count: Int) -> [UInt64] {
        var limbs = [UInt64](repeating: 0, count: count)
        for (position, byte) in bytes.reversed().enumerated() where byte != 0 {
            precondition(position / 8 < count, "the number fits the limbs")
            limbs[position / 8] |= UInt64(byte) << (8 * UInt64(position % 8))
        }
        return limbs
    }

    /// Big-endian bytes of little-endian limbs, the last `byteCount` bytes.
    static func bigEndian(_ limbs: [UInt64], byteCount: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: byteCount)
        for position in 0..<min(byteCount, 8 * limbs.count) {
            bytes[byteCount - 1 - position] = UInt8(truncatingIfNeeded: limbs[position / 8] >> (8 * UInt64(position % 8)))
        }
        return bytes
    }
}
