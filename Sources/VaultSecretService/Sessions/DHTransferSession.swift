// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto
import CryptoExtras

import struct Foundation.Data

/// The `dh-ietf1024-sha256-aes128-cbc-pkcs7` session, as the freedesktop Secret Service
/// specification and its clients (libsecret, Python SecretStorage) define it:
///
/// - `OpenSession`'s input is the client's public key y (big-endian bytes, any length up to
///   128 significant bytes); the provider picks a private exponent x, answers g^x mod p
///   (128 bytes, big-endian) in the Second Oakley Group (``OakleyGroup2``).
/// - The shared secret is y^x mod p as 128 big-endian bytes; the AES-128 key is its
///   HKDF-SHA256 with no salt and no info, 16 bytes.
/// - Each secret is AES-128-CBC with PKCS#7 padding under a fresh random 16-byte IV; the
///   `Secret` struct's parameters are the IV, its value the ciphertext.
///
/// Errors never carry secret bytes: one fixed line each.
public struct DHTransferSession: TransferSession {
    public var algorithm: String { "dh-ietf1024-sha256-aes128-cbc-pkcs7" }

    /// The AES-128 key both sides derived.
    let key: SymmetricKey

    private static let blockSize = 16

    /// The session and the provider's public key (128 bytes, big-endian) for a client's
    /// public key: a fresh key pair for each session, made here. (With GMP two
    /// exponentiations take about 0.3 ms; a pair made ahead on a thread of its own, as
    /// before, saved half of that and kept a private key in memory between sessions.)
    public static func open(clientPublicKey: [UInt8]) throws(TransferSessionError) -> (DHTransferSession, [UInt8]) {
        try open(clientPublicKey: clientPublicKey, privateKey: OakleyGroup2.makePrivateKey())
    }

    /// `open(clientPublicKey:)` with a given private exponent (big-endian): for tests.
    package static func open(clientPublicKey: [UInt8], privateKey: [UInt8]) throws(TransferSessionError) -> (DHTransferSession, [UInt8]) {
        try open(clientPublicKey: clientPublicKey, privateKey: privateKey, publicKey: OakleyGroup2.publicKey(privateKey: privateKey))
    }

    private static func open(
        clientPublicKey: [UInt8], privateKey: [UInt8], publicKey: [UInt8]
    ) throws(TransferSessionError) -> (DHTransferSession, [UInt8]) {
        guard let peerKey = OakleyGroup2.validatedPeerKey(clientPublicKey) else {
            throw .invalidArguments(
                "the client's public key is not a key of the 1024-bit MODP group (\(clientPublicKey.count) bytes; 1 < y < p - 1 required)")
        }
        let shared = OakleyGroup2.sharedSecret(peerKey: peerKey, privateKey: privateKey)
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: shared), outputByteCount: 16)
        return (DHTransferSession(key: key), publicKey)
    }

    public func encrypt(_ secret: [UInt8]) throws(TransferSessionError) -> (parameters: [UInt8], value: [UInt8]) {
        var generator = SystemRandomNumberGenerator()
        let iv = RandomBytes.make(Self.blockSize, using: &generator)
        do {
            // PKCS#7 padding by swift-crypto (pinned by AESCBCPaddingTests: `_CBC` is underscored).
            let value = try AES._CBC.encrypt(secret, using: key, iv: AES._CBC.IV(ivBytes: iv), noPadding: false)
            return (iv, [UInt8](value))
        } catch {
            // Unreachable with a 16-byte IV and whole blocks; no secret in the message.
            throw .invalidArguments("AES-CBC encryption failed")
        }
    }

    public func decrypt(parameters: [UInt8], value: [UInt8]) throws(TransferSessionError) -> [UInt8] {
        guard parameters.count == Self.blockSize else {
            throw .invalidArguments("the secret's parameters must be a 16-byte IV, not \(parameters.count) bytes")
        }
        guard !value.isEmpty, value.count % Self.blockSize == 0 else {
            throw .invalidArguments("the secret's value must be whole 16-byte AES blocks, not \(value.count) bytes")
        }
        // swift-crypto checks and removes the PKCS#7 padding in constant time; with the lengths
        // checked above, a failure is a padding that is not PKCS#7 (a wrong key, a forged value).
        do {
            return [UInt8](try AES._CBC.decrypt(value, using: key, iv: AES._CBC.IV(ivBytes: parameters), noPadding: false))
        } catch {
            throw .invalidArguments("the secret could not be decrypted: its padding is not PKCS#7")
        }
    }
}
