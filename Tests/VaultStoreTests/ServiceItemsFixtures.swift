// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

/// Secret Service contents the tests of the vault file's version 2 store and compare.
enum ServiceItemsFixtures {
    static let passphrase = "correct horse"

    static func store(_ dir: String, passphrase: String = passphrase) -> EncryptedFileStore {
        EncryptedFileStore(path: "\(dir)/vault.db", passphrase: .fixed(Secret(passphrase)), kdf: KDFParameters(log2N: 10))
    }

    static func item(
        _ collection: String = ServiceCollection.loginID, _ id: String, label: String = "an item",
        attributes: [String: String] = ["xdg:schema": "org.freedesktop.Secret.Generic", "service": "svc"],
        contentType: String = "text/plain", secret: [UInt8] = Array("s3cret".utf8), created: UInt64 = 1_764_000_000,
        modified: UInt64 = 1_764_000_001
    ) -> ServiceItem {
        ServiceItem(
            reference: .init(collection: collection, id: id), label: label, attributes: attributes, contentType: contentType,
            secret: Secret(bytes: secret), created: created, modified: modified)
    }

    static func collection(_ id: String, label: String = "Work") -> ServiceCollection {
        ServiceCollection(id: id, label: label, created: 1_700_000_000, modified: 1_700_000_100)
    }

    /// A change that adds `items` (and `collections`) and says it changed something.
    static func adding(_ items: [ServiceItem], collections: [ServiceCollection] = []) -> (inout VaultContents) -> Bool {
        { contents in
            for collection in collections { contents.collections[collection.id] = collection }
            for item in items { contents.items[item.reference] = item }
            return true
        }
    }

    /// The format version in a vault file's header (bytes 8 and 9).
    static func formatVersion(_ path: String) throws -> Int {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        return Int(bytes[8]) << 8 | Int(bytes[9])
    }

    static func fileBytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// True when `needle` occurs in `haystack`.
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
