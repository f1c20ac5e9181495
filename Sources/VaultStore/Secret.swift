// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Secret bytes (a password, a token, a passphrase) that never print themselves.
///
/// `description`, `debugDescription` and `dump` show `<redacted N bytes>` only, so a
/// secret that reaches a log line or an error message by mistake does not leak.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The raw bytes of the secret.
    public let bytes: [UInt8]

    /// Wraps raw bytes.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Wraps the UTF-8 encoding of `string`.
    public init(_ string: String) { self.bytes = Array(string.utf8) }

    /// The secret decoded as UTF-8, or nil when it is not valid UTF-8.
    public var utf8String: String? { String(validating: bytes, as: UTF8.self) }

    /// True when the secret has no bytes.
    public var isEmpty: Bool { bytes.isEmpty }

    /// Always `<redacted N bytes>` (N is the byte count), never the bytes: safe in logs and messages.
    public var description: String { "<redacted \(bytes.count) bytes>" }
    /// The same redacted text as ``description``, so `debugPrint` and `String(reflecting:)` do not leak either.
    public var debugDescription: String { description }
    /// A mirror without children, so `dump` and other reflection show no bytes.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
