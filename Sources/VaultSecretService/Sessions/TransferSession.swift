// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// How secrets cross the bus in one Secret Service session (`OpenSession`'s algorithm):
/// `plain`, or `dh-ietf1024-sha256-aes128-cbc-pkcs7` (a Diffie-Hellman exchange over the
/// 1024-bit MODP group of RFC 2409, HKDF-SHA256 to a 128-bit AES key, AES-CBC with PKCS#7
/// padding and a fresh random IV per secret), as the freedesktop specification defines.
public protocol TransferSession: Sendable {
    /// The algorithm's name, as `OpenSession` got it.
    var algorithm: String { get }

    /// A secret on its way to the client: the `(parameters, value)` of the `Secret` struct
    /// (`(oayays)`): for the DH session the IV and the ciphertext.
    func encrypt(_ secret: [UInt8]) throws(TransferSessionError) -> (parameters: [UInt8], value: [UInt8])

    /// A secret the client sent (`CreateItem`, `SetSecret`).
    func decrypt(parameters: [UInt8], value: [UInt8]) throws(TransferSessionError) -> [UInt8]
}

/// Why a session could not be opened, or a secret not be read.
public enum TransferSessionError: Error, Equatable, Sendable {
    /// An algorithm this provider does not offer (D-Bus error `org.freedesktop.DBus.Error.NotSupported`).
    case notSupported(String)
    /// Bad input: a public key of the wrong size or out of range, a bad IV, bad padding
    /// (D-Bus error `org.freedesktop.DBus.Error.InvalidArgs`).
    case invalidArguments(String)
}

/// Opens sessions by algorithm name.
public enum TransferSessions {
    /// The algorithms offered, best first.
    public static let algorithms = ["dh-ietf1024-sha256-aes128-cbc-pkcs7", "plain"]

    /// A session for `OpenSession(algorithm, input)`: `input` is the variant's bytes (the
    /// client's public key for DH; ignored for `plain`, whose input is an empty string).
    /// Returns the session and the `output` to send back: the provider's public key for
    /// DH (as `ay`), nil for `plain` (sent as an empty string).
    public static func open(
        algorithm: String, input: [UInt8]
    ) throws(TransferSessionError) -> (
        session: any TransferSession, output: [UInt8]?
    ) {
        switch algorithm {
        case "plain": return (PlainTransferSession(), nil)
        case "dh-ietf1024-sha256-aes128-cbc-pkcs7":
            let (session, publicKey) = try DHTransferSession.open(clientPublicKey: input)
            return (session, publicKey)
        default: throw .notSupported("the algorithm \"\(algorithm.prefix(64))\" is not offered; offered: \(algorithms.joined(separator: ", "))")
        }
    }
}

/// The `plain` session: secrets as they are, parameters empty.
public struct PlainTransferSession: TransferSession {
    public var algorithm: String { "plain" }
    public init() {}
    public func encrypt(_ secret: [UInt8]) throws(TransferSessionError) -> (parameters: [UInt8], value: [UInt8]) { ([], secret) }
    public func decrypt(parameters: [UInt8], value: [UInt8]) throws(TransferSessionError) -> [UInt8] { value }
}
