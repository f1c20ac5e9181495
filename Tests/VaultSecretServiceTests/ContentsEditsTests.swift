// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultStore

@testable import VaultSecretService

/// What Secret Service calls do to a vault's credentials: a call that does not ask to replace
/// one never overwrites it (found by the secret-service-call fuzz target's review: a CreateItem
/// without replace, or SetAttributes, in vault's shape for an existing key replaced its secret).
@Suite("Secret Service edits of the vault's contents")
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
        let reference = ServiceItem.Reference(collection: ServiceCollection.loginID, id: created.id)
        let item = ModelItem(item: try #require(contents.items[reference]))
        let id = try contents.setAttributes(of: item, attributes: ServiceItemShape.attributes(for: Self.key), now: 2)
        #expect(id == created.id)
        #expect(contents.credentials[Self.key] == Self.original)
        #expect(contents.items[reference]?.attributes == ServiceItemShape.attributes(for: Self.key))

        // Another credential moved onto the key: it is kept, as a Service item, and the original stays.
        let second = CredentialKey(server: "db.internal", account: "restore")
        contents.credentials[second] = Credential(key: second, secret: Secret("second"), label: "second")
        let moved = try contents.setAttributes(
            of: ModelItem(credential: try #require(contents.credentials[second])), attributes: ServiceItemShape.attributes(for: Self.key),
            now: 3)
        #expect(contents.credentials[Self.key] == Self.original && contents.credentials[second] == nil)
        #expect(contents.items.values.contains { $0.reference.id == moved && $0.secret == Secret("second") })
    }
}
