// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Random bytes from a generator (the system's, `getrandom(2)`, outside tests).
enum RandomBytes {
    /// `count` bytes, eight from each 64-bit draw.
    static func make(_ count: Int, using generator: inout some RandomNumberGenerator) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            var word = generator.next()
            for _ in 0..<8 {
                bytes.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return Array(bytes.prefix(count))
    }
}
