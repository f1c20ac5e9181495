// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The plaintext body of a vault file: the items, padded to a multiple of 256 bytes so
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
        let estimate = items.values.reduce(4) {
            $0 + 16 + $1.server.utf8.count + $1.account.utf8.count + $1.label.utf8.count + $1.secret.bytes.count
        }
        var writer = ByteWriter(capacity: estimate + padding)
        writer.append(UInt32(items.count))
        for credential in items.values.sorted(by: { $0.key < $1.key }) {
            writer.append(kindCode(credential.key.kind))
            writer.appendField(credential.server.utf8)
            writer.appendField(credential.account.utf8)
            writer.appendField(credential.label.utf8)
            writer.appendField(credential.secret.bytes)
        }
        let pad = (padding - writer.bytes.count % padding) % padding
        writer.append(raw: repeatElement(UInt8(0), count: pad))
        return writer.bytes
    }

    package static func decode(_ body: [UInt8]) throws(VaultError) -> [CredentialKey: Credential] {
        var reader = ByteReader(body)
        guard let count = reader.readUInt32(), Int(count) <= body.count / 16 else { throw malformed }
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

    private static func string(_ bytes: ArraySlice<UInt8>) -> String? { String(validating: bytes, as: UTF8.self) }

    private static var malformed: VaultError { .corrupted("the decrypted contents are malformed") }
}
