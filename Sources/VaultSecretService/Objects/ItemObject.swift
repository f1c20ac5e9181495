// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// `org.freedesktop.Secret.Item` at `/org/freedesktop/secrets/collection/ID/ITEM`.
extension ProviderCore {
    static let itemMethods = ["Delete": "", "GetSecret": "o", "SetSecret": "(oayays)"]

    /// The item at `collection`/`id`; `NoSuchObject` when there is none, `IsLocked` while locked.
    private func findItem(_ collection: String, _ id: String) async throws(ServiceFault) -> ModelItem {
        guard let item = try await model().item(collection, id) else { throw .noSuchObject(ObjectPath.itemPath(collection, id)) }
        return item
    }

    /// One read-modify-write of the item at `collection`/`id` as the contents being changed
    /// hold it (not as an earlier read found it: that item may be gone, and its path with it).
    private func modifyItem<T: Sendable>(
        _ collection: String, _ id: String,
        _ change: @escaping @Sendable (inout VaultContents, ModelItem, inout ItemPaths) throws(ServiceFault) -> T
    ) async throws(ServiceFault) -> T {
        try await modify { (contents, paths) throws(ServiceFault) in
            guard let item = ServiceModel(contents: contents, paths: paths).item(collection, id) else {
                throw .noSuchObject(ObjectPath.itemPath(collection, id))
            }
            return (try change(&contents, item, &paths), true)
        }
    }

    func itemCall(
        _ collection: String, _ id: String, _ member: String, _ arguments: [DBusValue], caller: String
    ) async throws(ServiceFault)
        -> Answer
    {
        let path = ObjectPath.itemPath(collection, id)
        switch member {
        case "Delete":
            try await modifyItem(collection, id) { (contents, item, _) throws(ServiceFault) in try contents.delete(item) }
            return Answer([.objectPath("/")], signals: [changed(collection, "ItemDeleted", path)])
        case "GetSecret":
            guard let sessionPath = arguments[0].objectPath else { throw .invalidArgs("session") }
            let session = try session(at: sessionPath, caller: caller)
            let item = try await findItem(collection, id)
            return Answer([try sendSecret(item, sessionPath: sessionPath, session: session)])
        case "SetSecret":
            let (secret, contentType) = try receiveSecret(arguments[0], caller: caller)
            let now = Self.now()
            let (before, after) = try await modifyItem(collection, id) { (contents, item, paths) throws(ServiceFault) in
                let after = try contents.setSecret(of: item, secret: secret, contentType: contentType, now: now)
                paths.move(item.source, to: after)
                return (item.source, after)
            }
            if case .credential(let key) = before, before != after {
                logger.notice(
                    """
                    a Secret Service client stored a secret of content type \(contentType.prefix(100)) in vault's credential for \
                    \(key.account) at \(key.server): it is kept as that client's item now, which `vault load` does not read
                    """)
            }
            return Answer([], signals: [changed(collection, "ItemChanged", path)])
        default: throw .unknownMethod(Interface.item, member, "")
        }
    }

    func itemProperties(_ collection: String, _ id: String) async throws(ServiceFault) -> [(String, DBusValue)] {
        let item = try await findItem(collection, id)
        return [
            ("Locked", .boolean(false)), ("Attributes", .stringDictionary(item.attributes)), ("Label", .string(item.label)),
            ("Created", .uint64(item.created)), ("Modified", .uint64(item.modified)),
        ]
    }

    func setItemProperty(_ collection: String, _ id: String, _ name: String, _ value: DBusValue) async throws(ServiceFault) -> Answer {
        let path = ObjectPath.itemPath(collection, id)
        _ = try await findItem(collection, id)  // no item: NoSuchObject before any other answer
        let now = Self.now()
        switch name {
        case "Label":
            guard let label = value.string else { throw .invalidArgs("Label must be a string") }
            try Limits.check(label: label)
            try await modifyItem(collection, id) { (contents, item, _) throws(ServiceFault) in
                try contents.setLabel(of: item, label: label, now: now)
            }
            return Answer(
                [], signals: [Answer.propertiesChanged(path, Interface.item, [("Label", value)]), changed(collection, "ItemChanged", path)])
        case "Attributes":
            guard let attributes = value.stringDictionary else { throw .invalidArgs("Attributes must be a{ss}") }
            try Limits.check(attributes: attributes)
            // The item keeps its path, whatever record it becomes (as in GNOME Keyring).
            try await modifyItem(collection, id) { (contents, item, paths) throws(ServiceFault) in
                paths.move(item.source, to: try contents.setAttributes(of: item, attributes: attributes, now: now))
            }
            return Answer(
                [], signals: [Answer.propertiesChanged(path, Interface.item, [("Attributes", value)]), changed(collection, "ItemChanged", path)])
        case "Locked", "Created", "Modified": throw .readOnly(name)
        default: throw .unknownProperty(name)
        }
    }

    private func changed(_ collection: String, _ signal: String, _ itemPath: String) -> Signal {
        Signal(path: ObjectPath.collectionPath(collection), interface: Interface.collection, name: signal, arguments: [.objectPath(itemPath)])
    }
}
