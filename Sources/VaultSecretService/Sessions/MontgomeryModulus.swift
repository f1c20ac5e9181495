// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Modular exponentiation for one odd modulus, in Montgomery form: enough big-number
/// arithmetic for a Diffie-Hellman exchange, and nothing more.
///
/// - Numbers are big-endian bytes outside, little-endian 32-bit limbs inside, each limb held
///   in a `UInt64` so that `a * b + t + c` never overflows 64 bits and every step is a
///   wrapping operator (fast even in a debug build).
/// - ``power(_:exponent:)`` takes the same time and touches the same memory whatever the
///   exponent's bits: a fixed 4-bit window, a multiplication for every window (by one when
///   the window is zero), the table entry picked by masking every entry, and a final
///   subtraction chosen by a mask. The exponent is the private key.
/// - The modulus is public: setting up (`init`) may take branches on it.
package struct MontgomeryModulus: Sendable {
    /// The modulus, little-endian limbs below 2^32.
    let limbs: [UInt64]
    /// The modulus's length in bytes, as given: results are padded to it.
    let byteCount: Int
    /// -modulus⁻¹ mod 2^32.
    private let inverse: UInt64
    /// R mod modulus (one, in Montgomery form), R = 2^(32 × limb count).
    private let one: [UInt64]
    /// R² mod modulus (turns a number into Montgomery form).
    private let rSquared: [UInt64]

    private static let mask: UInt64 = 0xFFFF_FFFF

    /// A modulus from its big-endian bytes; it must be odd and above one (the caller's
    /// constant, so a violation is a programming error).
    init(bigEndian bytes: [UInt8]) {
        precondition(bytes.contains { $0 > 1 } || bytes.dropLast().contains { $0 != 0 }, "a Montgomery modulus is above one")
        let limbs = Self.limbs(bigEndian: bytes, count: (bytes.count + 3) / 4)
        precondition(limbs[0] & 1 == 1, "a Montgomery modulus is odd")
        self.limbs = limbs
        byteCount = bytes.count
        // Newton's iteration doubles the correct low bits each step: 1, 2, 4, ... 32 (and beyond).
        var inverse: UInt64 = 1
        for _ in 0..<6 { inverse = (inverse &* (2 &- limbs[0] &* inverse)) & Self.mask }
        self.inverse = (0 &- inverse) & Self.mask
        // R mod m and R² mod m by doubling one, 32n then 32n more times (once per modulus).
        var value = [UInt64](repeating: 0, count: limbs.count)
        value[0] = 1
        for _ in 0..<(32 * limbs.count) { value = Self.doubled(value, modulo: limbs) }
        one = value
        for _ in 0..<(32 * limbs.count) { value = Self.doubled(value, modulo: limbs) }
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
        let mask = Self.mask
        let inverse = inverse
        t.update(repeating: 0, count: n + 2)
        var i = 0
        while i < n {
            let bi = b[i]
            var carry: UInt64 = 0
            var j = 0
            while j < n {
                let x = a[j] &* bi &+ t[j] &+ carry
                t[j] = x & mask
                carry = x >> 32
                j &+= 1
            }
            var x = t[n] &+ carry
            t[n] = x & mask
            t[n + 1] = x >> 32
            let factor = (t[0] &* inverse) & mask
            carry = (t[0] &+ factor &* m[0]) >> 32
            j = 1
            while j < n {
                x = t[j] &+ factor &* m[j] &+ carry
                t[j &- 1] = x & mask
                carry = x >> 32
                j &+= 1
            }
            x = t[n] &+ carry
            t[n &- 1] = x & mask
            t[n] = t[n + 1] &+ (x >> 32)
            i &+= 1
        }
        // t < 2 × modulus: subtract the modulus when t[n] is set or no borrow is left, chosen
        // by a mask, not a branch. The difference goes to t[0..<n] after product gets t.
        var borrow: UInt64 = 0
        var j = 0
        while j < n {
            product[j] = t[j]
            let x = t[j] &- m[j] &- borrow
            t[j] = x & mask
            borrow = (x >> 63) & 1
            j &+= 1
        }
        let keep = 0 &- ((t[n] | (borrow ^ 1)) & 1)
        j = 0
        while j < n {
            product[j] = (t[j] & keep) | (product[j] & ~keep)
            j &+= 1
        }
    }

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
        var result = value.map { ($0 << 1) & mask }
        for j in 1..<value.count { result[j] |= value[j - 1] >> 31 }
        let overflow = value[value.count - 1] >> 31
        if overflow == 1 || compare(result, modulus) >= 0 {
            var borrow: UInt64 = 0
            for j in 0..<result.count {
                let x = result[j] &- modulus[j] &- borrow
                result[j] = x & mask
                borrow = (x >> 63) & 1
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

    /// Little-endian 32-bit limbs of big-endian bytes; `count` limbs must hold the value.
    static func limbs(bigEndian bytes: [UInt8], count: Int) -> [UInt64] {
        var limbs = [UInt64](repeating: 0, count: count)
        for (position, byte) in bytes.reversed().enumerated() where byte != 0 {
            precondition(position / 4 < count, "the number fits the limbs")
            limbs[position / 4] |= UInt64(byte) << (8 * UInt64(position % 4))
        }
        return limbs
    }

    /// Big-endian bytes of little-endian limbs, the last `byteCount` bytes.
    static func bigEndian(_ limbs: [UInt64], byteCount: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: byteCount)
        for position in 0..<min(byteCount, 4 * limbs.count) {
            bytes[byteCount - 1 - position] = UInt8(truncatingIfNeeded: limbs[position / 4] >> (8 * UInt64(position % 4)))
        }
        return bytes
    }
}
