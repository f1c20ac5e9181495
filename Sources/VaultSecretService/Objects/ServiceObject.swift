// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// `org.freedesktop.Secret.Service` at `/org/freedesktop/secrets`.
extension ProviderCore {
    /// Argument signatures by method.
    static let serviceMethods = [
        "OpenSession": "sv", "CreateCollection": "a{sv}s", "SearchItems": "a{ss}", "Unlock": "ao", "Lock": "ao", "GetSecrets": "aoo",
        "ReadAlias": "s", "SetAlias": "so",
    ]

    func serviceCall(_ member: String, _ arguments: [DBusValue], caller: String) async throws(ServiceFault) -> Answer {
        switch member {
        case "OpenSession": return try openSession(arguments, caller: caller)
        case "CreateCollection": return try await createCollection(arguments)
        case "SearchItems":
            guard let query = arguments[0].stringDictionary else { throw .invalidArgs("attributes") }
            try Limits.check(attributes: query)
            let found: [ModelItem]
            do throws(ServiceFault) {
                found = try await model().search(query)
            } catch  where error == .isLocked {
                found = []
            }
            return Answer([.objectPaths(found.map { ObjectPath.itemPath($0.collection, $0.id) }), .objectPaths([])])
        case "Unlock":
            let objects = try paths(arguments[0])
            var unlocked = !backing.isLocked
            if !unlocked { unlocked = await backing.unlock() }
            if unlocked { return Answer([.objectPaths(objects), .objectPath("/")]) }
            let number = try state.withLock { (state) throws(ServiceFault) in try state.addPrompt(owner: caller) }
            logger.notice("a Secret Service client asked to unlock the vault; no key is available: run `vault unlock`")
            return Answer([.objectPaths([]), .objectPath(ObjectPath.promptPath(number))])
        case "Lock":
            let objects = try paths(arguments[0])
            await backing.lock()
            return Answer([.objectPaths(objects), .objectPath("/")])
        case "GetSecrets": return try await getSecrets(arguments, caller: caller)
        case "ReadAlias":
            guard let name = arguments[0].string else { throw .invalidArgs("name") }
            guard let id = alias(name) else { return Answer([.objectPath("/")]) }
            return Answer([.objectPath(ObjectPath.collectionPath(id))])
        case "SetAlias": return try await setAlias(arguments)
        default: throw .unknownMethod(Interface.service, member, "")
        }
    }

    func serviceProperties() async -> [(String, DBusValue)] {
        let ids = (try? await model().collectionIDs) ?? state.withLock { $0.knownCollections }
        return [("Collections", .objectPaths(ids.map(ObjectPath.collectionPath)))]
    }

    private func paths(_ value: DBusValue) throws(ServiceFault) -> [String] {
        guard let paths = value.objectPaths, paths.count <= Limits.pathsPerCall else { throw .invalidArgs("too many objects") }
        return paths
    }

    private func openSession(_ arguments: [DBusValue], caller: String) throws(ServiceFault) -> Answer {
        guard let algorithm = arguments[0].string, let input = arguments[1].variantContent else { throw .invalidArgs("algorithm, input") }
        let bytes: [UInt8]
        if case .bytes(let given) = input { bytes = given } else { bytes = [] }
        let opened: (session: any TransferSession, output: [UInt8]?)
        do throws(TransferSessionError) {
            opened = try TransferSessions.open(algorithm: algorithm, input: bytes)
        } catch {
            switch error {
            case .notSupported(let why): throw .notSupported(why)
            case .invalidArguments(let why): throw .invalidArgs(why)
            }
        }
        let number = try state.withLock { (state) throws(ServiceFault) in try state.add(opened.session, owner: caller) }
        let output: DBusValue = opened.output.map { .variant(.bytes($0)) } ?? .variant(.string(""))
        return Answer([output, .objectPath(ObjectPath.sessionPath(number))])
    }

    private func createCollection(_ arguments: [DBusValue]) async throws(ServiceFault) -> Answer {
        guard let properties = arguments[0].properties, let aliasName = arguments[1].string else { throw .invalidArgs("properties, alias") }
        let label = properties["org.freedesktop.Secret.Collection.Label"]?.string ?? ""
        try Limits.check(label: label)
        guard aliasName.isEmpty || ObjectPath.isPathElement(aliasName) else { throw .invalidArgs("the alias must be [A-Za-z0-9_]+") }
        if !aliasName.isEmpty, let existing = alias(aliasName), try await model().hasCollection(existing) {
            return Answer([.objectPath(ObjectPath.collectionPath(existing)), .objectPath("/")])
        }
        let now = Self.now()
        let id = try await modify { (contents, _) throws(ServiceFault) in (contents.createCollection(label: label, now: now), true) }
        if !aliasName.isEmpty { state.withLock { $0.aliases[aliasName] = id } }
        let path = ObjectPath.collectionPath(id)
        return Answer(
            [.objectPath(path), .objectPath("/")],
            signals: [
                Signal(path: ObjectPath.root, interface: Interface.service, name: "CollectionCreated", arguments: [.objectPath(path)]),
                Answer.propertiesChanged(ObjectPath.root, Interface.service, await serviceProperties()),
            ])
    }

    private func getSecrets(_ arguments: [DBusValue], caller: String) async throws(ServiceFault) -> Answer {
        let items = try paths(arguments[0])
        guard let sessionPath = arguments[1].objectPath else { throw .invalidArgs("session") }
        let session = try session(at: sessionPath, caller: caller)
        let model = try await model()
        var entries: [DBusValue] = []
        for path in items {
            guard case .item(let collection, let id) = ObjectPath(path, alias: alias), let item = model.item(collection, id) else { continue }
            let secret = try sendSecret(item, sessionPath: sessionPath, session: session)
            entries.append(.dictEntry(.objectPath(path), secret))
        }
        return Answer([.array(elementType: "{o(oayays)}", entries)])
    }

    private func setAlias(_ arguments: [DBusValue]) async throws(ServiceFault) -> Answer {
        guard let name = arguments[0].string, ObjectPath.isPathElement(name), let path = arguments[1].objectPath else {
            throw .invalidArgs("the alias must be [A-Za-z0-9_]+")
        }
        if path == "/" {
            guard name != "default" else { throw .notSupported("the default alias always names a collection") }
            state.withLock { $0.aliases[name] = nil }
            return Answer([])
        }
        guard case .collection(let id) = ObjectPath(path, alias: alias), try await model().hasCollection(id) else { throw .noSuchObject(path) }
        state.withLock { $0.aliases[name] = id }
        return Answer([])
    }
}
