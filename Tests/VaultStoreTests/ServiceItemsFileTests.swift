// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultTestSupport
import VaultTesting

private typealias F = ServiceItemsFixtures

/// The vault file keeps Secret Service items (format version 2): round trips, the version
/// rule, the migration of a version 1 file, and every older write path keeping them.
@Suite(.offThePool) struct ServiceItemsFileTests {
    @Test func itemsRoundTripThroughAnotherInstance() throws {
        try withTemporaryDirectory("vault-ss") { dir in
            let items = [
                F.item(
                    "login", "i1", label: "git: https://git.example.com",
                    attributes: ["xdg:schema": "org.gnome.keyring.NetworkPassword", "user": "alice", "server": "git.example.com"]),
                F.item("login", "empty_secret", secret: []),
                F.item("work", "binary", secret: [0x00, 0xff, 0x80, 0x0a, 0x00], created: 0, modified: .max),
                F.item(
                    "work", "unicode", label: "Ünïcødé 🔑 — ключ", attributes: ["é": "ü", "": "", "emoji 🔑": "v\u{0}al"],
                    contentType: "application/octet-stream"),
                F.item("login", "no_attributes", label: "", attributes: [:], contentType: ""),
            ]
            let work = F.collection("work", label: "Travail — été")
            try F.store(dir).modifyContents(F.adding(items, collections: [work]))

            let contents = try #require(try F.store(dir).contents())
            #expect(contents.collections == ["work": work])
            #expect(contents.items == Dictionary(uniqueKeysWithValues: items.map { ($0.reference, $0) }))
            #expect(contents.credentials.isEmpty)
            #expect(try F.formatVersion("\(dir)/vault.db") == 2)
        }
    }

    @Test func manyItemsRoundTrip() throws {
        try withTemporaryDirectory("vault-ss") { dir in
            let items = (0..<600).map { index in
                F.item(
                    index % 2 == 0 ? "login" : "bulk", "item_\(index)", label: "item number \(index)",
                    attributes: Dictionary(uniqueKeysWithValues: (0..<(index % 7)).map { ("attribute\($0)", "value \(index) \($0)") }),
                    secret: Array(repeating: UInt8(truncatingIfNeeded: index), count: index % 300))
            }
            let store = F.store(dir)
            try store.modifyContents(F.adding(items, collections: [F.collection("bulk")]))
            try store.save(Credential(server: "s", account: "a", secret: Secret("x")))
            let reopened = try #require(try F.store(dir).contents())
            #expect(reopened.items.count == 600)
            #expect(reopened.items == Dictionary(uniqueKeysWithValues: items.map { ($0.reference, $0) }))
            #expect(reopened.credentials.count == 1)
            // The body stays in whole 256-byte blocks.
            #expect((try F.fileBytes("\(dir)/vault.db").count - 97 - 16) % 256 == 0)
        }
    }

    @Test func theFileIsVersion1UntilItHoldsAServiceItemAndAgainAfterTheLast() throws {
        try withTemporaryDirectory("vault-ss") { dir in
            let path = "\(dir)/vault.db"
            let store = F.store(dir)
            try store.save(Credential(server: "s", account: "a", secret: Secret("x")))
            #expect(try F.formatVersion(path) == 1)
            try store.modifyContents(F.adding([F.item("login", "one")]))
            #expect(try F.formatVersion(path) == 2)
            try store.modifyContents { contents in
                contents.items.removeAll()
                return true
            }
            #expect(try F.formatVersion(path) == 1)
            // A collection with no item still needs version 2.
            try store.modifyContents(F.adding([], collections: [F.collection("empty")]))
            #expect(try F.formatVersion(path) == 2)
            #expect(try F.store(dir).contents()?.collections["empty"] == F.collection("empty"))
            #expect(try F.store(dir).load(server: "s", account: "a")?.secret == Secret("x"))
        }
    }

    @Test func aChangeThatChangesNothingWritesNothing() throws {
        try withTemporaryDirectory("vault-ss") { dir in
            let store = F.store(dir)
            try store.modifyContents(F.adding([F.item("login", "one")]))
            let before = try F.fileBytes("\(dir)/vault.db")
            try store.modifyContents { _ in false }
            #expect(try F.fileBytes("\(dir)/vault.db") == before)
        }
    }

    @Test func contentsTheFileCannotHoldAreRefusedAndNothingIsWritten() throws {
        try withTemporaryDirectory("vault-ss") { dir in
            let store = F.store(dir)
            try store.modifyContents(F.adding([F.item("login", "one")]))
            let before = try F.fileBytes("\(dir)/vault.db")
            let changes: [(String, (inout VaultContents) -> Bool)] = [
                ("an item in a collection that does not exist", F.adding([F.item("nowhere", "x")])),
                ("an id with a dash", F.adding([F.item("login", "a-b")])),
                ("an empty id", F.adding([F.item("login", "")])),
                ("a 65-byte id", F.adding([F.item("login", String(repeating: "x", count: 65))])),
                ("a login collection record", F.adding([], collections: [F.collection("login")])),
                (
                    "a collection under another key",
                    {
                        $0.collections["a"] = F.collection("b"); return true
                    }
                ),
                (
                    "an item under another key",
                    {
                        $0.items[.init(collection: "login", id: "a")] = F.item("login", "b"); return true
                    }
                ),
            ]
            for (what, change) in changes {
                #expect("\(what)") { try store.modifyContents(change) } throws: { sameCase($0, as: VaultError.invalidInput("")) }
                #expect(try F.fileBytes("\(dir)/vault.db") == before, "\(what)")
            }
            #expect(try F.store(dir).contents()?.items.count == 1)
        }
    }

    @Test func aVersion1VectorMigratesAndBack() throws {
        let vector = try FileFormatVectorTests.vector("v1-two-items.vault")
        let expected = try #require(vector.expect.items)
        let copy = try FileFormatVectorTests.VaultCopy(of: vector.file)
        let item = F.item("login", "migrated", attributes: ["xdg:schema": "org.freedesktop.Secret.Generic", "user": "carol"])
        try copy.store(vector.passphrase).modifyContents(F.adding([item]))
        #expect(try F.formatVersion(copy.path) == 2)
        let migrated = copy.store(vector.passphrase)
        #expect(try migrated.list() == expected.map(\.info).sorted())
        for credential in expected { #expect(try migrated.load(credential.key)?.secret.bytes == credential.secret) }
        #expect(try migrated.contents()?.items == [item.reference: item])

        try migrated.modifyContents { contents in contents.items.removeValue(forKey: item.reference) != nil }
        #expect(try F.formatVersion(copy.path) == 1)
        let back = copy.store(vector.passphrase)
        #expect(try back.list() == expected.map(\.info).sorted())
        for credential in expected { #expect(try back.load(credential.key)?.secret.bytes == credential.secret) }
        #expect(try back.contents()?.items.isEmpty == true)
    }

    @Test func everyOlderWritePathKeepsTheServiceItems() throws {
        try withTemporaryDirectory("vault-ss") { dir in
            let items = [F.item("login", "kept"), F.item("work", "kept_too", secret: [0, 1, 2])]
            let work = F.collection("work")
            try F.store(dir).modifyContents(F.adding(items, collections: [work]))
            let expectedItems = Dictionary(uniqueKeysWithValues: items.map { ($0.reference, $0) })

            let credential = Credential(server: "s", account: "a", secret: Secret("x"))
            try F.store(dir).save(credential)
            #expect(try F.store(dir).contents()?.items == expectedItems, "after save")
            try F.store(dir).saveAll([Credential(server: "t", account: "b", secret: Secret("y"))])
            #expect(try F.store(dir).contents()?.items == expectedItems, "after saveAll")
            try F.store(dir).remove(credential.key)
            #expect(try F.store(dir).contents()?.items == expectedItems, "after remove")
            #expect(try F.formatVersion("\(dir)/vault.db") == 2)

            try F.store(dir).changePassphrase(to: Secret("a new passphrase"))
            #expect(throws: VaultError.wrongPassphrase) { try F.store(dir).contents() }
            let renewed = try #require(try F.store(dir, passphrase: "a new passphrase").contents())
            #expect(renewed.items == expectedItems, "after passwd")
            #expect(renewed.collections == ["work": work])
            #expect(renewed.credentials.keys.map(\.server) == ["t"])
            #expect(try F.formatVersion("\(dir)/vault.db") == 2)
        }
    }

    /// Clients' items in one of a key's shapes are read as on a keyring (`ClientItemsReadingRuleTests`); any other is not.
    @Test func theSecureStoreAPISeesNoOtherApplicationsItem() throws {
        try withTemporaryDirectory("vault-ss") { dir in
            let store = F.store(dir)
            try store.modifyContents(F.adding([F.item("login", "hidden", attributes: ["server": "s", "user": "a", "authtype": "ntlm"])]))
            #expect(try store.list().isEmpty)
            #expect(try store.load(server: "s", account: "a") == nil)
            try store.remove(CredentialKey(server: "s", account: "a"))
            #expect(try store.contents()?.items.count == 1)
        }
    }

    @Test func nothingAboutTheItemsIsReadableInTheFile() throws {
        try withTemporaryDirectory("vault-ss") { dir in
            let needles = [
                "a-distinctive-label-7f3a", "xdg:schema", "org.gnome.keyring.NetworkPassword", "attribute-name-91c2",
                "attribute-value-5d0e", "secret-bytes-e81b", "collection-label-44aa", "collection_id_2b", "item_id_99",
                "application/x-distinctive",
            ]
            let item = F.item(
                "collection_id_2b", "item_id_99", label: "a-distinctive-label-7f3a",
                attributes: ["xdg:schema": "org.gnome.keyring.NetworkPassword", "attribute-name-91c2": "attribute-value-5d0e"],
                contentType: "application/x-distinctive", secret: Array("secret-bytes-e81b".utf8))
            try F.store(dir).modifyContents(
                F.adding([item], collections: [F.collection("collection_id_2b", label: "collection-label-44aa")]))
            let bytes = try F.fileBytes("\(dir)/vault.db")
            for needle in needles {
                #expect(!F.contains(bytes, Array(needle.utf8)), "\(needle) is readable in the file")
                #expect(!F.contains(bytes, Array(needle.utf16).flatMap { [UInt8($0 & 0xff), UInt8($0 >> 8)] }), "\(needle) (UTF-16)")
            }
            // The search itself finds what is there.
            #expect(F.contains(bytes, [0x89, 0x56, 0x4C, 0x54]))
        }
    }
}
