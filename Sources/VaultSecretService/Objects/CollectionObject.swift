// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// `org.freedesktop.Secret.Collection` at `/org/freedesktop/secrets/collection/ID`.
extension ProviderCore {
    static let collectionMethods = ["Delete": "", "SearchItems": "a{ss}", "CreateItem": "a{sv}(oayays)b"]

    func collectionCall(_ id: String, _ member: String, _ arguments: [DBusValue], caller: String) async throws(ServiceFault) -> Answer {
        let path = ObjectPath.collectionPath(id)
        switch member {
        case "Delete":
            try await modify { (contents, _) throws(ServiceFault) in
                try contents.deleteCollection(id)
                return ((), true)
            }
            state.withLock { state in
                for (name, target) in state.aliases where target == id { state.aliases[name] = name == "default" ? ServiceCollection.loginID : nil }
            }
            return Answer(
                [.objectPath("/")],
                signals: [
                    Signal(path: ObjectPath.root, interface: Interface.service, name: "CollectionDeleted", arguments: [.objectPath(path)]),
                    Answer.propertiesChanged(ObjectPath.root, Interface.service, await serviceProperties()),
                ])
        case "SearchItems":
            guard let query = arguments[0].stringDictionary else { throw .invalidArgs("attributes") }
            try Limits.check(attributes: query)
            do throws(ServiceFault) {
                let model = try await model()
                guard model.hasCollection(id) else { throw ServiceFault.noSuchObject(path) }
                return Answer([.objectPaths(model.search(query, in: id).map { ObjectPath.itemPath(id, $0.id) })])
            } catch  where error == .isLocked {
                return Answer([.objectPaths([])])
            }
        case "CreateItem": return try await createItem(in: id, arguments, caller: caller)
        default: throw .unknownMethod(Interface.collection, member, "")
        }
    }

    private func createItem(in id: String, _ arguments: [DBusValue], caller: String) async throws(ServiceFault) -> Answer {
        guard let properties = arguments[0].properties, let replace = arguments[2].boolean else { throw .invalidArgs("properties, replace") }
        let label = properties["org.freedesktop.Secret.Item.Label"]?.string ?? ""
        let given = properties["org.freedesktop.Secret.Item.Attributes"] ?? .array(elementType: "{ss}", [])
        guard let attributes = given.stringDictionary else { throw .invalidArgs("org.freedesktop.Secret.Item.Attributes must be a{ss}") }
        try Limits.check(label: label)
        try Limits.check(attributes: attributes)
        let (secret, contentType) = try receiveSecret(arguments[1], caller: caller)
        let now = Self.now()
        let key = id == ServiceCollection.loginID ? ServiceItemShape.credentialKey(for: attributes) : nil
        let (itemID, isNew, replaced, credentialLost) = try await modify { (contents, paths) throws(ServiceFault) in
            let hadCredential = key.map { contents.credentials[$0] != nil } ?? false
            let stored = try contents.storeItem(
                collection: id, attributes: attributes, label: label, contentType: contentType, secret: secret, replace: replace, now: now)
            if let old = stored.takesPathOf { paths.move(old, to: stored.source) }
            let gone = paths.update(for: contents).gone.map(\.id)
            guard let itemID = paths.id(of: stored.source) else { throw .failed("the item was not stored") }
            return ((itemID, stored.isNew, gone, hadCredential && key.map { contents.credentials[$0] == nil } == true), true)
        }
        if credentialLost, let key {
            logger.notice(
                """
                a Secret Service client replaced vault's credential for \(key.account) at \(key.server) with a secret of content type \
                \(contentType.prefix(100)): it is that client's item now, which `vault load` does not read
                """)
        }
        let itemPath = ObjectPath.itemPath(id, itemID)
        let collectionPath = ObjectPath.collectionPath(id)
        // The other items a replace replaced are gone.
        let deleted = replaced.map {
            Signal(path: collectionPath, interface: Interface.collection, name: "ItemDeleted", arguments: [.objectPath(ObjectPath.itemPath(id, $0))])
        }
        return Answer(
            [.objectPath(itemPath), .objectPath("/")],
            signals: deleted + [
                Signal(
                    path: collectionPath, interface: Interface.collection, name: isNew ? "ItemCreated" : "ItemChanged",
                    arguments: [.objectPath(itemPath)])
            ])
    }

    /// The collection's properties. While the vault is locked they try the key cache first
    /// (so `vault unlock` shows at once); a collection clients saw before then shows `Locked`
    /// and no items.
    func collectionProperties(_ id: String) async throws(ServiceFault) -> [(String, DBusValue)] {
        let path = ObjectPath.collectionPath(id)
        if backing.isLocked { _ = await backing.unlock() }
        let lockedView: [(String, DBusValue)] = [
            ("Items", .objectPaths([])), ("Label", .string(id)), ("Locked", .boolean(true)), ("Created", .uint64(0)), ("Modified", .uint64(0)),
        ]
        let known = state.withLock { $0.knownCollections.contains(id) } || id == ServiceCollection.loginID
        if backing.isLocked {
            guard known else { throw .noSuchObject(path) }
            return lockedView
        }
        let model: ServiceModel
        do throws(ServiceFault) {
            model = try await self.model()
        } catch  where error == .isLocked {
            guard known else { throw .noSuchObject(path) }
            return lockedView
        }
        guard let collection = model.collection(id) else { throw .noSuchObject(path) }
        return [
            ("Items", .objectPaths(model.items(in: id).map { ObjectPath.itemPath(id, $0.id) })), ("Label", .string(collection.label)),
            ("Locked", .boolean(false)), ("Created", .uint64(collection.created)), ("Modified", .uint64(collection.modified)),
        ]
    }

    func setCollectionProperty(_ id: String, _ name: String, _ value: DBusValue) async throws(ServiceFault) -> Answer {
        guard name == "Label" else {
            throw ["Items", "Locked", "Created", "Modified"].contains(name) ? .readOnly(name) : .unknownProperty(name)
        }
        guard let label = value.string else { throw .invalidArgs("Label must be a string") }
        try Limits.check(label: label)
        let now = Self.now()
        try await modify { (contents, _) throws(ServiceFault) in
            try contents.setCollectionLabel(id, label: label, now: now)
            return ((), true)
        }
        let path = ObjectPath.collectionPath(id)
        return Answer(
            [],
            signals: [
                Answer.propertiesChanged(path, Interface.collection, [("Label", .string(label))]),
                Signal(path: ObjectPath.root, interface: Interface.service, name: "CollectionChanged", arguments: [.objectPath(path)]),
            ])
    }
}
