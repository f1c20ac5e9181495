// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultTestSupport

private typealias F = ServiceItemsFixtures

/// The independent Python implementation of the format (`Scripts/file-format-vectors.py`)
/// and vault read each other's version 2 files, written with fresh salts and nonces.
@Suite(.offThePool) struct ServiceItemsInteropTests {
    static let script = PackageRoot.appending("Scripts/file-format-vectors.py")

    struct PythonContents: Decodable {
        struct Header: Decodable { var version: Int }
        struct Item: Decodable {
            var server: String
            var account: String
            var kind: String
            var label: String
            var secretHex: String
        }
        var header: Header
        var items: [Item]
        var collections: [FileFormatVectorTests.CollectionVector]
        var serviceItems: [FileFormatVectorTests.ServiceItemVector]
    }

    func python(_ arguments: [String], passphrase: String) throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment["VAULT_PASSPHRASE"] = passphrase
        return try ChildProcess.run("/usr/bin/python3", [Self.script] + arguments, environment: environment, timeout: 120)
    }

    @Test func pythonReadsAVersion2FileVaultWrote() throws {
        try withTemporaryDirectory("vault-ss") { dir in
            let items = [
                F.item("login", "a1", label: "Ünïcødé 🔑", attributes: ["xdg:schema": "org.gnome.keyring.NetworkPassword", "user": "alice"]),
                F.item("work", "b2", attributes: [:], contentType: "application/octet-stream", secret: [0, 0xff, 0x80]),
                F.item("work", "c3", label: "", secret: [], created: 0, modified: .max),
            ]
            let work = F.collection("work", label: "Travail — été")
            let credential = Credential(server: "api.example.com", account: "alice", secret: Secret("pw"))
            try F.store(dir).save(credential)
            try F.store(dir).modifyContents(F.adding(items, collections: [work]))

            let result = try python(["--read", "\(dir)/vault.db"], passphrase: F.passphrase)
            #expect(result.status == 0, "\(result.err)")
            let read = try JSONDecoder().decode(PythonContents.self, from: result.stdout)
            #expect(read.header.version == 2)
            #expect(read.items.map(\.server) == ["api.example.com"])
            #expect(read.collections.map(\.value) == [work])
            #expect(read.serviceItems.map(\.value) == items.sorted { $0.reference < $1.reference })
        }
    }

    @Test func vaultReadsAVersion2FilePythonWrote() throws {
        try withTemporaryDirectory("vault-ss") { dir in
            let path = "\(dir)/vault.db"
            let result = try python(["--write-v2", path], passphrase: F.passphrase)
            #expect(result.status == 0, "\(result.err)")
            let expected = try FileFormatVectorTests.vector("v2-service-items.vault").expect
            let contents = try #require(try F.store(dir).contents())
            #expect(try F.formatVersion(path) == 2)
            #expect(contents.credentials.count == expected.items?.count)
            #expect(contents.collections.values.map(\.id) == (expected.collections ?? []).map(\.id))
            let expectedItems = (expected.serviceItems ?? []).map(\.value)
            #expect(contents.items == Dictionary(uniqueKeysWithValues: expectedItems.map { ($0.reference, $0) }))
            // vault writes to it and Python still reads it.
            try F.store(dir).modifyContents(F.adding([F.item("login", "added_by_vault")]))
            let reread = try python(["--read", path], passphrase: F.passphrase)
            #expect(reread.status == 0, "\(reread.err)")
            let read = try JSONDecoder().decode(PythonContents.self, from: reread.stdout)
            #expect(read.serviceItems.count == expectedItems.count + 1)
        }
    }
}
