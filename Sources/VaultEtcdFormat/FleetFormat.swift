// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto
import VaultStore

/// The fleet's records in etcd, version 1, integers big-endian: the 85-byte parameters record at
/// `PREFIX` + `params` (magic `"\x89VLE\r\n\x1a\n"`, version, scrypt parameters, salt, AEAD id,
/// and an HMAC over it and its own etcd key), and each item at `PREFIX` + `items/` + a hex HMAC of
/// kind, server and account, sealed with AES-256-GCM with its etcd key as associated data. The keys
/// come from scrypt(passphrase, salt) through HKDF-SHA256, one per use: so the parameters record
/// checks the passphrase, names hide servers and accounts, and a value moved to another key (or
/// another prefix) fails authentication. Byte by byte: docs/fleet.md, "The records, byte by byte".
package enum FleetFormat {
    package static let magic: [UInt8] = [0x89, 0x56, 0x4C, 0x45, 0x0D, 0x0A, 0x1A, 0x0A]
    package static let version: UInt16 = 1
    package static let signedSize = 53
    package static let recordSize = 85
    package static let itemFormat: UInt8 = 1

    /// The parameters record's fields.
    package struct Parameters: Sendable, Equatable {
        package var kdf: KDFParameters
        package var salt: [UInt8]

        package init(kdf: KDFParameters, salt: [UInt8]) {
            self.kdf = kdf
            self.salt = salt
        }
    }

    /// The keys of one fleet store.
    package struct Keys: Sendable {
        let parameters: SymmetricKey
        let items: SymmetricKey
        let names: SymmetricKey

        package init(master: SymmetricKey) {
            func derive(_ info: String) -> SymmetricKey {
                HKDF<SHA256>.deriveKey(inputKeyMaterial: master, info: Array(info.utf8), outputByteCount: 32)
            }
            parameters = derive("vault etcd parameters mac v1")
            items = derive("vault etcd item aead v1")
            names = derive("vault etcd item name v1")
        }
    }

    /// The unsigned bytes of a parameters record.
    package static func signedBytes(_ parameters: Parameters) -> [UInt8] {
        var writer = ByteWriter(capacity: recordSize)
        writer.append(raw: magic)
        writer.append(version)
        writer.append(UInt8(1))
        writer.append(parameters.kdf.log2N)
        writer.append(parameters.kdf.r)
        writer.append(parameters.kdf.p)
        writer.append(raw: parameters.salt)
        writer.append(UInt8(1))
        return writer.bytes
    }

    /// The whole record, signed under `keys` for the etcd key `recordKey`.
    package static func record(_ parameters: Parameters, keys: Keys, recordKey: String) -> [UInt8] {
        let signed = signedBytes(parameters)
        return signed + Array(HMAC<SHA256>.authenticationCode(for: signed + Array(recordKey.utf8), using: keys.parameters))
    }

    /// Reads a record's fields, refusing what this version cannot read (before any key is derived).
    package static func parse(_ record: [UInt8]) throws(VaultError) -> Parameters {
        guard record.count >= magic.count + 2, Array(record[0..<magic.count]) == magic else {
            throw .unsupportedFormat("the etcd prefix holds something that is not vault's parameters record")
        }
        var reader = ByteReader(record, offset: magic.count)
        let version = reader.readUInt16() ?? 0
        guard version == Self.version else {
            throw .unsupportedFormat(
                version > Self.version
                    ? "the fleet store has format version \(version); this vault reads version \(Self.version) only (upgrade vault)"
                    : "the fleet store has an unknown format version \(version)")
        }
        guard record.count == recordSize, let kdfID = reader.readUInt8(), let log2N = reader.readUInt8(),
            let r = reader.readUInt32(), let p = reader.readUInt32(), let salt = reader.readBytes(32), let aead = reader.readUInt8()
        else { throw .corrupted("the fleet's parameters record has the wrong size") }
        guard kdfID == 1, aead == 1 else { throw .unsupportedFormat("unknown algorithm ids in the fleet's parameters record") }
        let kdf = KDFParameters(log2N: log2N, r: r, p: p)
        try kdf.checkReadable()
        return Parameters(kdf: kdf, salt: Array(salt))
    }

    /// True when `record`'s MAC verifies under `keys` (the passphrase is right and nothing was changed).
    package static func verify(_ record: [UInt8], keys: Keys, recordKey: String) -> Bool {
        guard record.count == recordSize else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(
            record[signedSize...], authenticating: Array(record[0..<signedSize]) + Array(recordKey.utf8), using: keys.parameters)
    }

    /// The hidden name of an item: 64 hex digits.
    package static func name(of key: CredentialKey, keys: Keys) -> String {
        var writer = ByteWriter()
        writer.appendField(key.kind.rawValue.utf8)
        writer.appendField(key.server.utf8)
        writer.appendField(key.account.utf8)
        return Hex.encode(HMAC<SHA256>.authenticationCode(for: writer.bytes, using: keys.names))
    }

    /// What every name of a fleet key in the key cache starts with, so that `vault lock
    /// --backend etcd` can drop them all without asking etcd anything.
    package static let cachePrefix = KeyCachePolicy.fleetKeyPrefix

    /// The name the fleet's key is kept under in the key cache: ``cachePrefix`` and 32 hex
    /// digits of a hash of the etcd cluster's id (`cluster_id`), the prefix and the
    /// parameters record (work factor and salt), so a key is only ever tried on the fleet
    /// it was derived for: a parameters record copied to another cluster (under the same
    /// prefix) does not find it. Nothing readable about any of them.
    package static func cacheName(clusterID: String, prefix: String, record: [UInt8]) -> String {
        let digest = SHA256.hash(data: Array("vault etcd key cache v2\u{0}\(clusterID)\u{0}\(prefix)\u{0}".utf8) + record)
        return cachePrefix + Hex.encode(digest.prefix(16))
    }

    /// The hidden name of an account's refresh lock: from the same key as item names but
    /// another domain, so etcd cannot tell which item a lock belongs to.
    package static func lockName(server: String, account: String, keys: Keys) -> String {
        var writer = ByteWriter()
        writer.appendField("refresh lock".utf8)
        writer.appendField(server.utf8)
        writer.appendField(account.utf8)
        return Hex.encode(HMAC<SHA256>.authenticationCode(for: writer.bytes, using: keys.names))
    }

    /// True for a name of the shape ``name(of:keys:)`` makes: 64 lower-case hex digits.
    package static func isItemName(_ name: Substring) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// `credential` sealed for the etcd key `itemKey`.
    package static func seal(_ credential: Credential, keys: Keys, itemKey: String) throws(VaultError) -> [UInt8] {
        try seal(credential, keys: keys, itemKey: itemKey, nonce: AES.GCM.Nonce())
    }

    /// `credential` sealed for `itemKey` with the 12-byte `nonce` given: for the fuzz targets'
    /// deterministic values only (a nonce must never repeat under one key).
    package static func seal(_ credential: Credential, keys: Keys, itemKey: String, nonce: [UInt8]) throws(VaultError) -> [UInt8] {
        let fixed: AES.GCM.Nonce
        do {
            fixed = try AES.GCM.Nonce(data: nonce)
        } catch {
            throw .invalidInput("a nonce is 12 bytes")
        }
        return try seal(credential, keys: keys, itemKey: itemKey, nonce: fixed)
    }

    private static func seal(_ credential: Credential, keys: Keys, itemKey: String, nonce: AES.GCM.Nonce) throws(VaultError) -> [UInt8] {
        do {
            let box = try AES.GCM.seal(
                ItemCodec.encode([credential.key: credential]), using: keys.items, nonce: nonce,
                authenticating: Array(itemKey.utf8))
            return [itemFormat] + Array(box.nonce) + Array(box.ciphertext) + Array(box.tag)
        } catch {
            throw .backendUnavailable("encryption failed")
        }
    }

    /// Opens the value stored at `itemKey`; `.corrupted` when it was modified, sealed under
    /// another passphrase, or moved from another key.
    package static func open(_ value: [UInt8], keys: Keys, itemKey: String) throws(VaultError) -> Credential {
        guard value.count >= 1 + 12 + 16, value[0] == itemFormat else {
            throw .corrupted("the etcd value at \(itemKey) is not a vault item")
        }
        let credentials: [CredentialKey: Credential]
        do {
            let box = try AES.GCM.SealedBox(
                nonce: try AES.GCM.Nonce(data: value[1..<13]), ciphertext: value[13..<(value.count - 16)],
                tag: value[(value.count - 16)...])
            credentials = try ItemCodec.decode(Array(try AES.GCM.open(box, using: keys.items, authenticating: Array(itemKey.utf8))))
        } catch {
            throw .corrupted("the etcd value at \(itemKey) fails authentication (modified, or moved from another key)")
        }
        guard credentials.count == 1, let credential = credentials.values.first else {
            throw .corrupted("the etcd value at \(itemKey) does not hold one item")
        }
        return credential
    }
}
