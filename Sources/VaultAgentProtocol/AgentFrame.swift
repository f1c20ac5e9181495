// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The framing of the agent's wire format (see ``AgentRequest``): lengths, bounds, fields.
public enum AgentFrame {
    /// The wire format's version byte.
    public static let version: UInt8 = 1
    /// The largest request payload: names and a rejected token fit many times over.
    public static let maximumRequest = 64 * 1024
    /// The largest answer payload: a stored secret (at most 1 MiB) with its label.
    public static let maximumAnswer = 2 * 1024 * 1024
    /// The most fields a payload may hold.
    static let maximumFields = 16

    /// `payload` preceded by its 4-byte big-endian length.
    public static func framed(_ payload: [UInt8]) -> [UInt8] {
        let count = UInt32(payload.count)
        return [UInt8(count >> 24), UInt8((count >> 16) & 0xFF), UInt8((count >> 8) & 0xFF), UInt8(count & 0xFF)] + payload
    }

    /// The payload length a frame's first four bytes announce.
    public static func announcedLength(_ header: some Collection<UInt8>) -> Int? {
        guard header.count >= 4 else { return nil }
        return header.prefix(4).reduce(0) { $0 << 8 | Int($1) }
    }

    /// A payload: version, kind, then each field with its length.
    static func payload(kind: UInt8, fields: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = [version, kind]
        bytes.reserveCapacity(2 + fields.reduce(0) { $0 + 4 + $1.count })
        for field in fields {
            let count = UInt32(field.count)
            bytes += [UInt8(count >> 24), UInt8((count >> 16) & 0xFF), UInt8((count >> 8) & 0xFF), UInt8(count & 0xFF)]
            bytes += field
        }
        return bytes
    }

    /// The kind and fields of a version-1 payload; nil when it is malformed.
    static func parse(_ payload: some Collection<UInt8>) -> (kind: UInt8, fields: [[UInt8]])? {
        let bytes = Array(payload)
        guard bytes.count >= 2, bytes[0] == version else { return nil }
        var fields: [[UInt8]] = []
        var index = 2
        while index < bytes.count {
            guard fields.count < maximumFields, bytes.count - index >= 4 else { return nil }
            let length = bytes[index..<index + 4].reduce(0) { $0 << 8 | Int($1) }
            index += 4
            guard length <= bytes.count - index else { return nil }
            fields.append(Array(bytes[index..<index + length]))
            index += length
        }
        return (bytes[1], fields)
    }
}
