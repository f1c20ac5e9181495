// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultStore
import VaultTestSupport

@testable import VaultSecretService

/// The map of item paths (issue 27, finding 1): a path is never handed to a second item, and
/// an item keeps its path while it is there.
@Suite("Secret Service item paths", .offThePool)
struct ItemPathsTests {
    static let alice = CredentialKey(server: "s.example", account: "alice")
    static let zed = CredentialKey(server: "s.example", account: "zed")

    static func contents(_ credentials: [CredentialKey: String], items: [ServiceItem] = []) -> VaultContents {
        VaultContents(
            credentials: credentials.reduce(into: [:]) { $0[$1.key] = Credential(key: $1.key, secret: Secret($1.value), label: "") },
            items: items.reduce(into: [:]) { $0[$1.reference] = $1 })
    }

    @Test("the first path is the item's own id; an unchanged item keeps it across updates and new secrets")
    func stable() {
        var paths = ItemPaths()
        #expect(paths.update(for: Self.contents([Self.alice: "1"])).changed)
        #expect(paths.id(of: .credential(Self.alice)) == ModelItem.id(for: Self.alice))
        #expect(!paths.update(for: Self.contents([Self.alice: "2"])).changed)
        #expect(paths.id(of: .credential(Self.alice)) == ModelItem.id(for: Self.alice))
        #expect(paths.source(ServiceCollection.loginID, ModelItem.id(for: Self.alice)) == .credential(Self.alice))
    }

    @Test("a key gone and back is a new item at a new path, and the old path names nothing, ever")
    func neverReused() throws {
        var paths = ItemPaths()
        _ = paths.update(for: Self.contents([Self.alice: "1"]))
        let first = ModelItem.id(for: Self.alice)
        let gone = paths.update(for: Self.contents([:]))
        #expect(gone.changed && gone.gone == [ItemPaths.Path(collection: ServiceCollection.loginID, id: first)])
        #expect(paths.source(ServiceCollection.loginID, first) == nil)
        var seen: Set<String> = [first]
        for round in 0..<5 {
            _ = paths.update(for: Self.contents([Self.alice: "\(round)"]))
            let id = try #require(paths.id(of: .credential(Self.alice)))
            #expect(!seen.contains(id) && ObjectPath.isPathElement(id), "\(id)")
            seen.insert(id)
            _ = paths.update(for: Self.contents([:]))
        }
    }

    @Test("a moved item keeps its path; its old record's key saved again gets a new one")
    func moved() {
        var paths = ItemPaths()
        _ = paths.update(for: Self.contents([Self.alice: "1"]))
        let path = ModelItem.id(for: Self.alice)
        paths.move(.credential(Self.alice), to: .credential(Self.zed))
        #expect(!paths.update(for: Self.contents([Self.zed: "1"])).changed)
        #expect(paths.source(ServiceCollection.loginID, path) == .credential(Self.zed))
        _ = paths.update(for: Self.contents([Self.zed: "1", Self.alice: "2"]))
        #expect(paths.id(of: .credential(Self.alice)).map { $0 != path } == true)
        // To a Service item and back.
        let reference = ServiceItem.Reference(collection: ServiceCollection.loginID, id: "s1234")
        let item = ServiceItem(
            reference: reference, label: "", attributes: ["a": "b"], contentType: "text/plain", secret: Secret("x"), created: 0, modified: 0)
        paths.move(.credential(Self.zed), to: .service(reference))
        _ = paths.update(for: Self.contents([Self.alice: "2"], items: [item]))
        #expect(paths.id(of: .service(reference)) == path)
        // A Service item whose own id is a path handed out before gets another.
        let clash = ServiceItem.Reference(collection: ServiceCollection.loginID, id: path)
        let other = ServiceItem(reference: clash, label: "", attributes: [:], contentType: "text/plain", secret: Secret("y"), created: 0, modified: 0)
        _ = paths.update(for: Self.contents([Self.alice: "2"], items: [item, other]))
        #expect(paths.id(of: .service(clash)).map { $0 != path } == true)
        #expect(paths.source(ServiceCollection.loginID, path) == .service(reference))
    }
}
