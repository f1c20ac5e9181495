// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultStore
import VaultTestSupport

@testable import VaultSecretService

/// What Secret Service calls do to a vault's credentials: a call that does not ask to replace
/// one never overwrites it (found by the secret-service-call fuzz target's review: a CreateItem
/// without replace, or SetAttributes, in vault's shape for an existing key replaced its secret).
@Suite("Secret Service edits of the vault's contents", .offThePool)
struct ContentsEditsTests {
    static let key = CredentialKey(server: "db.internal", account: "backup")
    static let original = Credential(key: key, secret: Secret("original secret 7e1c"), label: "original")

    static func contents() -> VaultContents {
        VaultContents(credentials: [key: original])
    }

    @Test("CreateItem without replace keeps the credential and adds a Service item beside it; with replace it updates")
    func createWithoutReplace() throws {
        var contents = Self.contents()
        let attributes = ServiceItemShape.attributes(for: Self.key)
        let added = try contents.storeItem(
            collection: ServiceCollection.loginID, attributes: attributes, label: "other", contentType: "text/plain",
            secret: Secret("another program's secret"), replace: false, now: 1)
        #expect(added.isNew)
        #expect(contents.credentials[Self.key] == Self.original)
        #expect(contents.items.count == 1 && contents.items.values.first?.attributes == attributes)

        var replaced = Self.contents()
        let update = try replaced.storeItem(
            collection: ServiceCollection.loginID, attributes: attributes, label: "new", contentType: "text/plain",
            secret: Secret("new secret"), replace: true, now: 1)
        #expect(!update.isNew && replaced.credentials[Self.key]?.secret == Secret("new secret") && replaced.items.isEmpty)
    }

    @Test("SetAttributes naming an existing credential leaves that credential alone")
    func setAttributesOntoACredential() throws {
        var contents = Self.contents()
        let created = try contents.storeItem(
            collection: ServiceCollection.loginID, attributes: ["app": "x"], label: "mine", contentType: "text/plain",
            secret: Secret("mine"), replace: false, now: 1)
        guard case .service(let reference) = created.source else { throw ContentsEditsFailure("not a Service item: \(created)") }
        let item = ModelItem(item: try #require(contents.items[reference]))
        let after = try contents.setAttributes(of: item, attributes: ServiceItemShape.attributes(for: Self.key), now: 2)
        #expect(after == created.source)
        #expect(contents.credentials[Self.key] == Self.original)
        #expect(contents.items[reference]?.attributes == ServiceItemShape.attributes(for: Self.key))

        // Another credential moved onto the key: it is kept, as a Service item, and the original stays.
        let second = CredentialKey(server: "db.internal", account: "restore")
        contents.credentials[second] = Credential(key: second, secret: Secret("second"), label: "second")
        let moved = try contents.setAttributes(
            of: ModelItem(credential: try #require(contents.credentials[second])), attributes: ServiceItemShape.attributes(for: Self.key),
            now: 3)
        #expect(contents.credentials[Self.key] == Self.original && contents.credentials[second] == nil)
        #expect(contents.items.values.contains { .service($0.reference) == moved && $0.secret == Secret("second") })
    }

    @Test("CreateItem with replace leaves one item of the attributes, whatever the content types (issue 27, finding 3)")
    func replaceEveryMatch() throws {
        let attributes = ServiceItemShape.attributes(for: Self.key)
        let login = ServiceCollection.loginID
        var contents = Self.contents()
        // A binary secret replacing the credential: the credential goes, its path passes on.
        let binary = try contents.storeItem(
            collection: login, attributes: attributes, label: "bin", contentType: "application/octet-stream", secret: Secret("b1"), replace: true,
            now: 1)
        #expect(contents.credentials.isEmpty && contents.items.count == 1, "\(contents)")
        #expect(!binary.isNew && binary.takesPathOf == .credential(Self.key))
        // An earlier duplicate (a create without replace beside the credential), then a replace.
        contents = Self.contents()
        _ = try contents.storeItem(
            collection: login, attributes: attributes, label: "dup", contentType: "text/plain", secret: Secret("dup"), replace: false, now: 1)
        #expect(contents.credentials.count == 1 && contents.items.count == 1)
        let text = try contents.storeItem(
            collection: login, attributes: attributes, label: "new", contentType: "text/plain", secret: Secret("new"), replace: true, now: 2)
        #expect(contents.items.isEmpty && contents.credentials[Self.key]?.secret == Secret("new"), "\(contents)")
        #expect(text == StoredItem(source: .credential(Self.key), takesPathOf: nil, isNew: false))
        // Both again, replaced by a binary secret: the Service item is updated in place, the credential goes.
        _ = try contents.storeItem(
            collection: login, attributes: attributes, label: "dup", contentType: "text/plain", secret: Secret("dup"), replace: false, now: 3)
        let reference = try #require(contents.items.keys.first)
        let kept = try contents.storeItem(
            collection: login, attributes: attributes, label: "bin", contentType: "application/octet-stream", secret: Secret("b2"), replace: true,
            now: 4)
        #expect(contents.credentials.isEmpty && contents.items.keys.map { $0 } == [reference] && contents.items[reference]?.secret == Secret("b2"))
        #expect(kept == StoredItem(source: .service(reference), takesPathOf: nil, isNew: false))
        // Service items of other attributes are not touched.
        _ = try contents.storeItem(
            collection: login, attributes: ["app": "x"], label: "x", contentType: "text/plain", secret: Secret("x"), replace: false, now: 5)
        _ = try contents.storeItem(
            collection: login, attributes: attributes, label: "t", contentType: "text/plain; charset=utf-8", secret: Secret("t"), replace: true,
            now: 6)
        #expect(contents.credentials[Self.key]?.secret == Secret("t") && contents.items.values.map(\.attributes) == [["app": "x"]])
    }

    @Test("SetSecret keeps vault's credential for text/plain with parameters, in any case (issue 27, finding 2)")
    func setSecretContentTypes() throws {
        var contents = Self.contents()
        let item = ModelItem(credential: Self.original)
        for type in ["text/plain", "text/plain; charset=utf8", "Text/PLAIN;charset=UTF-8", "\ttext/plain ; format=flowed"] {
            #expect(try contents.setSecret(of: item, secret: Secret(type), contentType: type, now: 1) == .credential(Self.key))
            #expect(contents.credentials[Self.key]?.secret == Secret(type) && contents.items.isEmpty, "\(type)")
        }
        for type in ["text/plainx", "text/html", "text/plain2; charset=utf8", "text/pla\u{130}n"] { #expect(!ModelItem.isText(type), "\(type)") }
        let after = try contents.setSecret(of: item, secret: Secret("bin"), contentType: "application/octet-stream", now: 2)
        #expect(contents.credentials.isEmpty && contents.items.values.map(\.secret) == [Secret("bin")])
        #expect(after == contents.items.keys.first.map(ModelItem.Source.service))
    }
}

struct ContentsEditsFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
