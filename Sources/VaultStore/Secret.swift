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

    public var description: String { "<redacted \(bytes.count) bytes>" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
