// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultTestSupport
import VaultTesting

/// Issue 37, finding 10: the file backend reads, updates and removes the items clients
/// stored through `vault agent --secret-service` by the keyring's rule (`ItemShape`), so
/// `vault load` answers the same on every backend, and never touches a neighbour.
@Suite("Encrypted file: clients' items by the keyring's rule", .offThePool)
struct ClientItemsReadingRuleTests {
    typealias F = ServiceItemsFixtures
    static let generic = "org.freedesktop.Secret.Generic"

    /// `secret-tool store user bob server h2.example.org` and its neighbours.
    static func neighbourhood() -> [ServiceItem] {
        [
            F.item(
                ServiceCollection.loginID, "plain", label: "bob", attributes: ["xdg:schema": generic, "user": "bob", "server": "h2.example.org"],
                secret: Array("tool-stored".utf8), modified: 10),
            F.item(
                ServiceCollection.loginID, "imap", label: "imap", attributes: ["user": "bob", "server": "h2.example.org", "protocol": "imap"],
                secret: Array("imap-secret".utf8)),
            F.item(
                ServiceCollection.loginID, "binary", label: "bin", attributes: ["user": "bin", "server": "h2.example.org"],
                contentType: "application/octet-stream"),
            F.item(ServiceCollection.loginID, "other", label: "py", attributes: ["service": "x", "username": "bob"]),
        ]
    }

    @Test("load and list read a plain user + server item; a neighbour, a binary secret and another schema are not read")
    func readsThePlainPair() throws {
        try withTemporaryDirectory("client-items") { dir in
            let store = F.store(dir)
            try store.modifyContents(F.adding(Self.neighbourhood()))
            let key = CredentialKey(server: "h2.example.org", account: "bob")
            let loaded = try #require(try store.load(key))
            #expect(loaded.secret == Secret("tool-stored") && loaded.label == "bob")
            #expect(try store.load(CredentialKey(server: "h2.example.org", account: "bin")) == nil)
            // The imap item is not bob's item of h2.example.org, but the item of imap://h2.example.org, as on a keyring.
            let imap = CredentialKey(server: "imap://h2.example.org", account: "bob")
            #expect(try store.list(server: nil).map(\.key) == [key, imap].sorted())
            #expect(try store.load(imap)?.secret == Secret("imap-secret"))
            // A newer item of the same key and shape is read, and listed once.
            let newer = F.item(
                ServiceCollection.loginID, "newer", label: "bob, newer", attributes: ["user": "bob", "server": "h2.example.org"],
                secret: Array("newer".utf8), modified: 20)
            try store.modifyContents(F.adding([newer]))
            #expect(try store.load(key)?.secret == Secret("newer"))
            #expect(try store.list(server: "h2.example.org").map(\.label) == ["bob, newer"])
            // In another collection it is someone else's, as on a keyring (the default collection only).
            let elsewhere = F.item("work", "w", attributes: ["user": "carol", "server": "h2.example.org"])
            try store.modifyContents(F.adding([elsewhere], collections: [F.collection("work")]))
            #expect(try store.load(CredentialKey(server: "h2.example.org", account: "carol")) == nil)
        }
    }

    @Test("save updates the client's item in place (label kept), remove deletes it; the neighbours stay as they were")
    func saveAndRemoveKeepNeighbours() throws {
        try withTemporaryDirectory("client-items") { dir in
            let store = F.store(dir)
            try store.modifyContents(F.adding(Self.neighbourhood()))
            let before = try #require(try store.contents())
            try store.save(Credential(server: "h2.example.org", account: "bob", secret: Secret("vault-saved")))
            let after = try #require(try store.contents())
            let plain = try #require(after.items[.init(collection: ServiceCollection.loginID, id: "plain")])
            #expect(plain.secret == Secret("vault-saved") && plain.label == "bob" && plain.attributes == before.items[plain.reference]?.attributes)
            #expect(after.credentials.isEmpty, "no second item of the key")
            for id in ["imap", "binary", "other"] {
                let reference = ServiceItem.Reference(collection: ServiceCollection.loginID, id: id)
                #expect(after.items[reference] == before.items[reference], "\(id) was changed")
            }
            try store.remove(CredentialKey(server: "h2.example.org", account: "bob"))
            let removed = try #require(try store.contents())
            #expect(removed.items[plain.reference] == nil)
            #expect(removed.items.count == 3, "only bob's item went")
            // A key with no client item: saved as vault's own item, as before.
            try store.save(Credential(server: "h3.example.org", account: "dan", secret: Secret("d")))
            #expect(try store.contents()?.credentials.count == 1)
        }
    }

    /// A keyring matches attributes byte for byte; Swift's `==` takes "café" spelled with é
    /// and with e + U+0301 for one string. A client's item is the item of its own spelling
    /// only: `save` and `remove` of one spelling never touch the other's (attack review 50).
    @Test("two spellings of one name are two keys for clients' items: load, save and remove touch only their own")
    func spellingsAreKeptApart() throws {
        try withTemporaryDirectory("client-items") { dir in
            let store = F.store(dir)
            let composed = "caf\u{E9}"
            let decomposed = "cafe\u{301}"
            try store.modifyContents(
                F.adding([
                    F.item(
                        ServiceCollection.loginID, "nfc", attributes: ["user": composed, "server": "srv.example"],
                        secret: Array("one".utf8), modified: 1),
                    F.item(
                        ServiceCollection.loginID, "nfd", attributes: ["user": decomposed, "server": "srv.example"],
                        secret: Array("two".utf8), modified: 2),
                ]))
            let nfc = CredentialKey(server: "srv.example", account: composed)
            let nfd = CredentialKey(server: "srv.example", account: decomposed)
            #expect(try store.load(nfc)?.secret == Secret("one"))
            #expect(try store.load(nfd)?.secret == Secret("two"))
            try store.save(Credential(key: nfc, secret: Secret("five")))
            let items = try #require(try store.contents()).items
            #expect(items[.init(collection: ServiceCollection.loginID, id: "nfc")]?.secret == Secret("five"))
            #expect(items[.init(collection: ServiceCollection.loginID, id: "nfd")]?.secret == Secret("two"), "the other spelling's item changed")
            try store.remove(nfc)
            let left = try #require(try store.contents()).items
            #expect(left[.init(collection: ServiceCollection.loginID, id: "nfc")] == nil)
            #expect(left[.init(collection: ServiceCollection.loginID, id: "nfd")]?.secret == Secret("two"), "the other spelling's item was removed")
        }
    }
}
