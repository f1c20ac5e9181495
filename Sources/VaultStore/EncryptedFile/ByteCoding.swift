// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Big-endian writer for the vault file's binary layouts.
package struct ByteWriter {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    package mutating func append(_ value: UInt8) { bytes.append(value) }

    package mutating func append(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    package mutating func append(_ value: UInt32) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func append(_ value: UInt64) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func append<C: Collection>(raw: C) where C.Element == UInt8 { bytes.append(contentsOf: raw) }

    /// A 32-bit length followed by the bytes; contiguous ones (a native string's UTF-8, an
    /// array) are copied at once rather than byte by byte.
    package mutating func appendField<C: Collection>(_ field: C) where C.Element == UInt8 {
        append(UInt32(field.count))
        let copied: Void? = field.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if copied == nil { bytes.append(contentsOf: field) }
    }
}

/// Big-endian reader that never reads past its end: every read returns nil instead.
package struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset: Int

    package init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    package var remaining: Int { bytes.count - offset }

    package mutating func readUInt8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func readUInt16() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    package mutating func readUInt32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { offset += 4 }
        return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    package mutating func readUInt64() -> UInt64? {
        guard remaining >= 8 else { return nil }
        defer { offset += 8 }
        return bytes[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) }
    }

    package mutating func readBytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// A 32-bit length followed by that many bytes.
    package mutating func readField() -> ArraySlice<UInt8>? {
        guard let count = readUInt32() else { return nil }
        return readBytes(Int(count))
    }
}

extension [UInt8] {
    /// Whether both hold the same bytes, by one `memcmp`: `==` compares element by element,
    /// and every read of a store compares the whole vault file (a megabyte at 10,000
    /// items) with the last one it decrypted. Not constant-time: for ciphertext only.
    package func hasSameBytes(as other: [UInt8]) -> Bool {
        guard count == other.count else { return false }
        return withUnsafeBytes { mine in
            other.withUnsafeBytes { theirs in mine.isEmpty || memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0 }
        }
    }
}
