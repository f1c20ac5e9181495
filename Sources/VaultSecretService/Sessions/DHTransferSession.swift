// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The `dh-ietf1024-sha256-aes128-cbc-pkcs7` session. (Placeholder: helper H2 writes it.)
public struct DHTransferSession: TransferSession {
    public var algorithm: String { "dh-ietf1024-sha256-aes128-cbc-pkcs7" }

    /// The session and the provider's public key (128 bytes, big-endian) for a client's public key.
    public static func open(clientPublicKey: [UInt8]) throws(TransferSessionError) -> (DHTransferSession, [UInt8]) {
        throw .notSupported("dh-ietf1024-sha256-aes128-cbc-pkcs7 is not written yet")
    }

    public func encrypt(_ secret: [UInt8]) throws(TransferSessionError) -> (parameters: [UInt8], value: [UInt8]) {
        throw .notSupported("not written yet")
    }

    public func decrypt(parameters: [UInt8], value: [UInt8]) throws(TransferSessionError) -> [UInt8] {
        throw .notSupported("not written yet")
    }
}
