// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto

/// The on-disk layout of an encrypted vault file, versions 1 and 2 (the same header; the
/// body, ``ContentsCodec``, of version 2 adds the Secret Service items), all integers big-endian:
/// a 97-byte header (magic `"\x89VLT\r\n\x1a\n"`, version, scrypt parameters, salt, AEAD id,
/// nonce, then an HMAC-SHA256 of its first 65 bytes under the header key), the AES-256-GCM body
/// with the header as AAD, and the tag. The header MAC checks the passphrase before the body is
/// opened, so a wrong passphrase and a modified body are told apart; the body (`ItemCodec`)
/// holds every server, account, label and secret. Byte by byte: docs/file-format.md, "Header".
package enum VaultFileFormat {
    static let magic: [UInt8] = [0x89, 0x56, 0x4C, 0x54, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The newest format version this vault reads and writes.
    static let version: UInt16 = 2
    /// The versions this vault reads.
    static let readableVersions: ClosedRange<UInt16> = 1...2
    static let scryptID: UInt8 = 1
    static let aesGCMID: UInt8 = 1
    static let saltSize = 32
    static let nonceSize = 12
    static let macOffset = 65
    static let headerSize = 97
    static let tagSize = 16

    /// What the header says, before any key is derived.
    package struct Header: Sendable, Equatable {
        package var kdf: KDFParameters
        package var salt: [UInt8]

        package init(kdf: KDFParameters, salt: [UInt8]) {
            self.kdf = kdf
            self.salt = salt
        }
    }

    /// Reads the unauthenticated header fields, refusing anything this version cannot read.
    package static func parseHeader(_ file: [UInt8]) throws(VaultError) -> Header {
        guard file.count >= magic.count, Array(file[0..<magic.count]) == magic else {
            throw .unsupportedFormat("not a vault file (the magic bytes are missing)")
        }
        var reader = ByteReader(file, offset: magic.count)
        guard let version = reader.readUInt16() else { throw truncated(file.count) }
        guard readableVersions.contains(version) else {
            if version > Self.version {
                throw .unsupportedFormat(
                    "the vault file has format version \(version); this vault reads versions 1 and 2 only (upgrade vault)")
            }
            throw .unsupportedFormat("the vault file has an unknown format version \(version)")
        }
        guard file.count >= headerSize + tagSize else { throw truncated(file.count) }
        guard let kdfID = reader.readUInt8(), let log2N = reader.readUInt8(), let r = reader.readUInt32(),
            let p = reader.readUInt32(), let salt = reader.readBytes(saltSize), let aeadID = reader.readUInt8()
        else { throw truncated(file.count) }
        guard kdfID == scryptID else { throw .unsupportedFormat("unknown key-derivation id \(kdfID) in the vault header") }
        guard aeadID == aesGCMID else { throw .unsupportedFormat("unknown cipher id \(aeadID) in the vault header") }
        let kdf = KDFParameters(log2N: log2N, r: r, p: p)
        try kdf.checkReadable()
        return Header(kdf: kdf, salt: Array(salt))
    }

    /// The format version of a file ``parseHeader(_:)`` accepted.
    package static func formatVersion(of file: [UInt8]) -> UInt16 {
        UInt16(file[magic.count]) << 8 | UInt16(file[magic.count + 1])
    }

    /// Checks the header MAC with `keys`, then opens the body.
    package static func open(_ file: [UInt8], keys: VaultKeys) throws(VaultError) -> [UInt8] {
        let signed = file[0..<macOffset]
        let mac = file[macOffset..<headerSize]
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: signed, using: keys.header) else {
            throw .wrongPassphrase
        }
        do {
            let nonce = try AES.GCM.Nonce(data: file[(macOffset - nonceSize)..<macOffset])
            let box = try AES.GCM.SealedBox(
                nonce: nonce, ciphertext: file[headerSize..<(file.count - tagSize)],
                tag: file[(file.count - tagSize)...])
            let plain = try AES.GCM.open(box, using: keys.body, authenticating: file[0..<headerSize])
            return Array(plain)
        } catch {
            throw .corrupted("the contents fail authentication (the file was truncated or modified)")
        }
    }

    /// Seals `body` under `keys` with a fresh random nonce, as format `version`.
    static func seal(_ body: [UInt8], version: UInt16, header: Header, keys: VaultKeys) throws(VaultError) -> [UInt8] {
        try seal(body, version: version, header: header, keys: keys, nonce: AES.GCM.Nonce())
    }

    /// Seals `body` with the 12-byte `nonce` given: for the fuzz targets' deterministic
    /// files only (a nonce must never repeat under one key; vault's writes draw a fresh one).
    package static func seal(
        _ body: [UInt8], version: UInt16, header: Header, keys: VaultKeys, nonce: [UInt8]
    ) throws(VaultError) -> [UInt8] {
        let fixed: AES.GCM.Nonce
        do {
            fixed = try AES.GCM.Nonce(data: nonce)
        } catch {
            throw .invalidInput("a nonce is \(nonceSize) bytes")
        }
        return try seal(body, version: version, header: header, keys: keys, nonce: fixed)
    }

    private static func seal(
        _ body: [UInt8], version: UInt16, header: Header, keys: VaultKeys, nonce: AES.GCM.Nonce
    ) throws(VaultError) -> [UInt8] {
        var writer = ByteWriter(capacity: headerSize + body.count + tagSize)
        writer.append(raw: magic)
        writer.append(version)
        writer.append(scryptID)
        writer.append(header.kdf.log2N)
        writer.append(header.kdf.r)
        writer.append(header.kdf.p)
        writer.append(raw: header.salt)
        writer.append(aesGCMID)
        writer.append(raw: nonce.withUnsafeBytes { Array($0) })
        let mac = HMAC<SHA256>.authenticationCode(for: writer.bytes, using: keys.header)
        writer.append(raw: mac.withUnsafeBytes { Array($0) })
        let aad = writer.bytes
        do {
            let box = try AES.GCM.seal(body, using: keys.body, nonce: nonce, authenticating: aad)
            writer.append(raw: box.ciphertext)
            writer.append(raw: box.tag)
        } catch {
            throw .backendUnavailable("encryption failed: \(error)")
        }
        return writer.bytes
    }

    package static func newSalt() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<saltSize).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    private static func truncated(_ size: Int) -> VaultError {
        .corrupted("the vault file is truncated (\(size) bytes)")
    }
}
