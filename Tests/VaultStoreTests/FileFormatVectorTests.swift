// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultTestSupport

/// vault reads the files of an independent implementation of its format
/// (`Scripts/file-format-vectors.py`, `docs/file-format.md`), and writes what it reads.
/// Public API only.
/// The vector files `vectors.json` describes; each is checked by its own test case.
private let fileFormatVectorFiles = [
    "v1-two-items.vault", "v1-empty.vault", "v1-wrong-mac.vault", "v1-tampered-body.vault", "v2-service-items.vault",
    "v2-empty.vault", "v2-unknown-collection.vault", "v2-huge-count.vault",
]

@Suite(.cpuBound) struct FileFormatVectorTests {
    /// `Vectors/vectors.json`, as the Python generator writes it.
    struct Manifest: Decodable {
        var vectors: [Vector]
    }

    struct Vector: Decodable {
        var file: String
        var passphrase: String
        var size: Int
        var expect: Expectation
    }

    struct Expectation: Decodable {
        var items: [Item]?
        var error: String?
        /// Version 2: the collections other than `login`, and the Secret Service items.
        var collections: [CollectionVector]?
        var serviceItems: [ServiceItemVector]?
    }

    struct CollectionVector: Decodable {
        var id: String
        var label: String
        var created: UInt64
        var modified: UInt64

        var value: ServiceCollection { ServiceCollection(id: id, label: label, created: created, modified: modified) }
    }

    struct ServiceItemVector: Decodable {
        var collection: String
        var id: String
        var label: String
        var contentType: String
        var created: UInt64
        var modified: UInt64
        var attributes: [String: String]
        var secretHex: String

        var value: ServiceItem {
            ServiceItem(
                reference: .init(collection: collection, id: id), label: label, attributes: attributes, contentType: contentType,
                secret: Secret(bytes: Hex.decode(secretHex) ?? []), created: created, modified: modified)
        }
    }

    struct Item: Decodable {
        var server: String
        var account: String
        var kind: String
        var label: String
        var secretHex: String

        var key: CredentialKey { CredentialKey(server: server, account: account, kind: ItemKind(rawValue: kind)!) }
        var info: CredentialInfo { CredentialInfo(key: key, label: label) }
        var secret: [UInt8] { Hex.decode(secretHex) ?? [] }
    }

    /// What `list` shows besides a vector's own items: clients' items that are items of a
    /// key by the keyring's rule (git's item of https://git.example.com, in `login`).
    static let alsoListed: [String: [CredentialInfo]] = [
        "v2-service-items.vault": [
            CredentialInfo(key: CredentialKey(server: "https://git.example.com", account: "alice"), label: "git: https://git.example.com (alice)")
        ]
    ]

    static let vectorDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors")

    static func manifest() throws -> Manifest {
        try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: vectorDirectory.appendingPathComponent("vectors.json")))
    }

    static func vector(_ file: String) throws -> Vector {
        let found = try manifest().vectors.first(where: { $0.file == file })
        return try #require(found, "\(file) is not in vectors.json")
    }

    /// A fresh 0700 directory holding a 0600 copy of the vector at `vault.db`; removed at deinit.
    final class VaultCopy {
        let directory: String
        let path: String

        init(of file: String) throws {
            directory = try TemporaryDirectory.make(prefix: "vault-vector")
            path = "\(directory)/vault.db"
            let bytes = try Data(contentsOf: FileFormatVectorTests.vectorDirectory.appendingPathComponent(file))
            #expect(FileManager.default.createFile(atPath: path, contents: bytes, attributes: [.posixPermissions: 0o600]))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory)
        }

        func store(_ passphrase: String) -> EncryptedFileStore {
            EncryptedFileStore(path: path, passphrase: .fixed(Secret(passphrase)), kdf: KDFParameters(log2N: 10))
        }

        func bytes() throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

        deinit { TemporaryDirectory.remove(directory) }
    }

    @Test func theManifestListsExactlyTheVectorsChecked() throws {
        let manifest = try Self.manifest()
        #expect(manifest.vectors.map(\.file).sorted() == fileFormatVectorFiles.sorted())
        for vector in manifest.vectors {
            let bytes = try Data(contentsOf: Self.vectorDirectory.appendingPathComponent(vector.file))
            #expect(bytes.count == vector.size, "\(vector.file)")
            #expect((vector.expect.items == nil) != (vector.expect.error == nil), "\(vector.file): items or an error, not both")
        }
    }

    @Test(arguments: fileFormatVectorFiles) func vaultReadsTheVector(_ file: String) throws {
        let vector = try Self.vector(file)
        let copy = try VaultCopy(of: file)
        let store = copy.store(vector.passphrase)
        if let items = vector.expect.items {
            #expect(try store.list() == (items.map(\.info) + (Self.alsoListed[file] ?? [])).sorted(), "\(file)")
            for item in items {
                let loaded = try #require(try store.load(item.key), "\(file): \(item.key) is missing")
                #expect(loaded.key == item.key)
                #expect(loaded.secret.bytes == item.secret, "\(file): the secret of \(item.key)")
                #expect(Array(loaded.label.utf8) == Array(item.label.utf8), "\(file): the label of \(item.key)")
            }
            // The kind is part of the key: the same server and account under another kind is no item.
            let keys = Set(items.map(\.key))
            for item in items {
                for kind in ItemKind.allCases where !keys.contains(CredentialKey(server: item.server, account: item.account, kind: kind)) {
                    #expect(try store.load(CredentialKey(server: item.server, account: item.account, kind: kind)) == nil)
                }
            }
            // Version 2 also holds collections and Secret Service items; version 1 none.
            let contents = try #require(try store.contents(), "\(file)")
            #expect(contents.credentials.count == items.count, "\(file)")
            let collections = vector.expect.collections ?? []
            let serviceItems = vector.expect.serviceItems ?? []
            #expect(contents.collections == Dictionary(uniqueKeysWithValues: collections.map { ($0.id, $0.value) }), "\(file)")
            #expect(contents.items == Dictionary(uniqueKeysWithValues: serviceItems.map { ($0.value.reference, $0.value) }), "\(file)")
        } else {
            switch vector.expect.error {
            case "wrongPassphrase":
                #expect(throws: VaultError.wrongPassphrase) { try store.list() }
                #expect(throws: VaultError.wrongPassphrase) { try copy.store(vector.passphrase).load(server: "api.example.com", account: "alice") }
            case "corrupted":
                let attempts: [() throws -> Void] = [
                    { _ = try copy.store(vector.passphrase).list() },
                    { _ = try copy.store(vector.passphrase).load(server: "api.example.com", account: "alice") },
                ]
                for attempt in attempts {
                    let error = #expect(throws: VaultError.self) { try attempt() }
                    guard case .corrupted? = error else {
                        Issue.record("\(file): expected VaultError.corrupted, got \(String(describing: error))")
                        continue
                    }
                }
            default:
                Issue.record("\(file): unknown expected error \(vector.expect.error ?? "none")")
            }
        }
    }

    @Test func aWrongPassphraseIsToldApartFromDamage() throws {
        let copy = try VaultCopy(of: "v1-two-items.vault")
        #expect(throws: VaultError.wrongPassphrase) { try copy.store("correct horse battery stapler").list() }
    }

    @Test func vaultWritesWhatItReads() throws {
        let vector = try Self.vector("v1-two-items.vault")
        let expected = try #require(vector.expect.items)
        let copy = try VaultCopy(of: vector.file)
        let before = try copy.bytes()
        let added = Credential(server: "new.example.com", account: "carol", secret: Secret(bytes: [0x00, 0x01, 0xfe]), label: "carol's")
        try copy.store(vector.passphrase).save(added)

        let after = try copy.bytes()
        // Same magic, version, KDF parameters, salt and cipher; a new nonce; whole 256-byte blocks.
        #expect(after[0..<53] == before[0..<53])
        #expect(after[53..<65] != before[53..<65])
        #expect((after.count - 97 - 16) % 256 == 0)

        let reopened = copy.store(vector.passphrase)
        #expect(try reopened.list() == (expected.map(\.info) + [added.info]).sorted())
        #expect(try reopened.list().count == expected.count + 1)
        for item in expected {
            #expect(try reopened.load(item.key)?.secret.bytes == item.secret)
            #expect(try reopened.load(item.key)?.label == item.label)
        }
        #expect(try reopened.load(added.key) == added)
        #expect(throws: VaultError.wrongPassphrase) { try copy.store("not the passphrase").list() }
    }
}
