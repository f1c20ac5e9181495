// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The plaintext body of a version 1 vault file (and the first section of a version 2
/// body, ``ContentsCodec``): vault's own items, padded to a multiple of 256 bytes so
/// the file size says little about its contents.
///
/// ```
/// u32 item count
/// per item: u8 kind, field(server) field(account) field(label) field(secret)   field = u32 length + bytes
/// (kind: 0 password, 1 tokens, 2 settings)
/// zero padding
/// ```
package enum ItemCodec {
    package static let padding = 256

    package static func encode(_ items: [CredentialKey: Credential]) -> [UInt8] {
        var writer = ByteWriter(capacity: estimatedSize(items) + padding)
        append(items, to: &writer)
        pad(&writer)
        return writer.bytes
    }

    package static func decode(_ body: [UInt8]) throws(VaultError) -> [CredentialKey: Credential] {
        var reader = ByteReader(body)
        return try read(from: &reader, bodySize: body.count)
    }

    /// The unpadded size of the item section, about.
    static func estimatedSize(_ items: [CredentialKey: Credential]) -> Int {
        items.values.reduce(4) {
            $0 + 16 + $1.server.utf8.count + $1.account.utf8.count + $1.label.utf8.count + $1.secret.bytes.count
        }
    }

    /// The item section (count and items, no padding), sorted by key.
    package static func append(_ items: [CredentialKey: Credential], to writer: inout ByteWriter) {
        var order: [CredentialKey] = []
        append(items, to: &writer, order: &order)
    }

    /// The item section sorted by key, reusing and updating `order`, the keys of an earlier
    /// write in their order (``WriteOrder``).
    package static func append(_ items: [CredentialKey: Credential], to writer: inout ByteWriter, order: inout [CredentialKey]) {
        let entries = WriteOrder.entries(of: items, reusing: order, by: <)
        order = entries.map(\.key)
        writer.append(UInt32(items.count))
        for (_, credential) in entries {
            writer.append(kindCode(credential.key.kind))
            writer.appendField(credential.server.utf8)
            writer.appendField(credential.account.utf8)
            writer.appendField(credential.label.utf8)
            writer.appendField(credential.secret.bytes)
        }
    }

    /// Zero bytes up to the next multiple of ``padding``.
    package static func pad(_ writer: inout ByteWriter) {
        let pad = (padding - writer.bytes.count % padding) % padding
        writer.append(raw: repeatElement(UInt8(0), count: pad))
    }

    /// Reads the item section at the reader's position; the count is bounded by the
    /// whole body's size (`bodySize / 16`), as version 1 specifies.
    static func read(from reader: inout ByteReader, bodySize: Int) throws(VaultError) -> [CredentialKey: Credential] {
        guard let count = reader.readUInt32(), Int(count) <= bodySize / 16 else { throw malformed }
        var items: [CredentialKey: Credential] = [:]
        items.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let kind = reader.readUInt8().flatMap(kind(code:)), let server = reader.readField().flatMap(string),
                let account = reader.readField().flatMap(string),
                let label = reader.readField().flatMap(string), let secret = reader.readField()
            else { throw malformed }
            let key = CredentialKey(server: server, account: account, kind: kind)
            items[key] = Credential(key: key, secret: Secret(bytes: Array(secret)), label: label)
        }
        return items
    }

    private static func kindCode(_ kind: ItemKind) -> UInt8 {
        switch kind {
        case .password: 0
        case .tokens: 1
        case .settings: 2
        }
    }

    private static func kind(code: UInt8) -> ItemKind? {
        switch code {
        case 0: .password
        case 1: .tokens
        case 2: .settings
        default: nil
        }
    }

    static func string(_ bytes: ArraySlice<UInt8>) -> String? { String(validating: bytes, as: UTF8.self) }

    static var malformed: VaultError { .corrupted("the decrypted contents are malformed") }
}
