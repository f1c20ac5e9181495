// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Glibc

/// Answers one method call: checks the caller (same uid as the provider), finds the object
/// at the path, checks the arguments' types, runs the method, replies, then emits the
/// signals the change causes.
extension ProviderCore {
    /// Answers `call` after the same client's earlier calls (from GDBus's worker thread:
    /// returns at once).
    func enqueue(_ call: IncomingCall) {
        state.withLock { state in
            let previous = state.lastCall[call.sender]
            state.lastCall[call.sender] = Task {
                await previous?.value
                await self.handle(call)
            }
        }
    }

    package func handle(_ call: IncomingCall) async {
        do throws(ServiceFault) {
            if case .parent = ObjectPath(call.path, alias: { _ in nil }) {
                guard call.member == "Introspect", call.signature.isEmpty else {
                    throw ServiceFault.unknownMethod(call.interface, call.member, call.signature)
                }
                call.reply([
                    .string(Introspection.node("", children: [String(ObjectPath.root.split(separator: "/")[call.path.split(separator: "/").count])]))
                ])
                return
            }
            try checkCaller(call.sender)
            let answer = try await dispatch(call)
            call.reply(answer.values)
            for signal in answer.signals { emit(signal.path, signal.interface, signal.name, signal.arguments) }
        } catch {
            call.fail(error)
        }
    }

    /// Only the provider's own uid may call.
    private func checkCaller(_ sender: String) throws(ServiceFault) {
        if let uid = state.withLock({ $0.uids[sender] }) {
            guard uid == getuid() else { throw .accessDenied }
            return
        }
        let reply = connection?.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixUser", [.string(sender)])
        guard case .success(let values)? = reply, case .uint32(let uid)? = values.first else { throw .accessDenied }
        state.withLock { state in
            if state.uids.count > 4 * Limits.sessions { state.uids.removeAll() }
            state.uids[sender] = uid
        }
        guard uid == getuid() else {
            logger.warning("refused a Secret Service call from uid \(uid) (\(sender))")
            throw .accessDenied
        }
    }

    private func dispatch(_ call: IncomingCall) async throws(ServiceFault) -> Answer {
        guard let object = ObjectPath(call.path, alias: alias) else {
            throw ServiceFault(name: "org.freedesktop.DBus.Error.UnknownObject", message: "no object at \(call.path.prefix(200))")
        }
        let interface = call.interface
        if interface == Interface.introspectable || (interface.isEmpty && call.member == "Introspect") {
            guard call.member == "Introspect", call.signature.isEmpty else { throw .unknownMethod(interface, call.member, call.signature) }
            return Answer([.string(try await introspect(object))])
        }
        if interface == Interface.properties {
            return try await propertiesCall(object, call)
        }
        let (expectedInterface, methods) = Self.methods(of: object)
        guard interface.isEmpty || interface == expectedInterface, let signature = methods[call.member] else {
            throw .unknownMethod(interface, call.member, call.signature)
        }
        guard call.signature == signature else {
            throw .invalidArgs("\(call.member) takes (\(signature)), not (\(call.signature.prefix(100)))")
        }
        let arguments = call.arguments()
        let caller = call.sender
        switch object {
        case .service: return try await serviceCall(call.member, arguments, caller: caller)
        case .collection(let id): return try await collectionCall(id, call.member, arguments, caller: caller)
        case .item(let collection, let id): return try await itemCall(collection, id, call.member, arguments, caller: caller)
        case .session(let number):
            let closed = state.withLock { state in
                guard state.sessions[number]?.owner == caller else { return false }
                state.sessions[number] = nil
                return true
            }
            guard closed else { throw .noSuchObject(call.path) }
            return Answer([])
        case .prompt(let number): return try promptCall(number, caller: caller)
        case .parent, .directory: throw .unknownMethod(interface, call.member, call.signature)
        }
    }

    /// The interface and method signatures of an object.
    private static func methods(of object: ObjectPath) -> (String, [String: String]) {
        switch object {
        case .service: (Interface.service, serviceMethods)
        case .collection: (Interface.collection, collectionMethods)
        case .item: (Interface.item, itemMethods)
        case .session: (Interface.session, ["Close": ""])
        case .prompt: (Interface.prompt, ["Prompt": "s", "Dismiss": ""])
        case .parent, .directory: ("", [:])
        }
    }

    /// `Prompt` and `Dismiss` both complete the prompt as dismissed: with no person at the
    /// machine there is nobody to ask (the log names `vault unlock`).
    private func promptCall(_ number: Int, caller: String) throws(ServiceFault) -> Answer {
        let owned = state.withLock { state in
            guard state.prompts[number] == caller else { return false }
            state.prompts[number] = nil
            return true
        }
        guard owned else { throw .noSuchObject(ObjectPath.promptPath(number)) }
        return Answer(
            [],
            signals: [
                Signal(
                    path: ObjectPath.promptPath(number), interface: Interface.prompt, name: "Completed",
                    arguments: [.boolean(true), .variant(.objectPaths([]))])
            ])
    }

    private func propertiesCall(_ object: ObjectPath, _ call: IncomingCall) async throws(ServiceFault) -> Answer {
        let arguments = call.arguments()
        let (interface, _) = Self.methods(of: object)
        switch (call.member, call.signature) {
        case ("Get", "ss"), ("GetAll", "s"):
            guard arguments[0].string == interface || (call.member == "GetAll" && arguments[0].string == "") else {
                if call.member == "GetAll" { return Answer([.properties([])]) }
                throw .unknownProperty(arguments[1].string ?? "")
            }
            let all = try await properties(of: object)
            if call.member == "GetAll" { return Answer([.properties(all)]) }
            guard let value = all.first(where: { $0.0 == arguments[1].string })?.1 else { throw .unknownProperty(arguments[1].string ?? "") }
            return Answer([.variant(value)])
        case ("Set", "ssv"):
            guard arguments[0].string == interface, let name = arguments[1].string, let value = arguments[2].variantContent else {
                throw .unknownProperty(arguments[1].string ?? "")
            }
            switch object {
            case .collection(let id): return try await setCollectionProperty(id, name, value)
            case .item(let collection, let id): return try await setItemProperty(collection, id, name, value)
            default: throw .readOnly(name)
            }
        case ("Get", _), ("GetAll", _), ("Set", _): throw .invalidArgs("\(call.member) with arguments (\(call.signature.prefix(100)))")
        default: throw .unknownMethod(Interface.properties, call.member, call.signature)
        }
    }

    private func properties(of object: ObjectPath) async throws(ServiceFault) -> [(String, DBusValue)] {
        switch object {
        case .service: await serviceProperties()
        case .collection(let id): try await collectionProperties(id)
        case .item(let collection, let id): try await itemProperties(collection, id)
        case .session, .prompt, .parent, .directory: []
        }
    }

    private func introspect(_ object: ObjectPath) async throws(ServiceFault) -> String {
        switch object {
        case .service:
            return Introspection.node(Introspection.service + Introspection.properties, children: ["collection", "aliases", "session", "prompt"])
        case .collection(let id):
            let items = (try? await model().items(in: id).map(\.id)) ?? []
            return Introspection.node(Introspection.collection + Introspection.properties, children: items)
        case .item: return Introspection.node(Introspection.item + Introspection.properties)
        case .session: return Introspection.node(Introspection.session + Introspection.properties)
        case .prompt: return Introspection.node(Introspection.prompt + Introspection.properties)
        case .directory(let name):
            let children: [String] =
                switch name {
                case "collection": (try? await model().collectionIDs) ?? state.withLock { $0.knownCollections }
                case "aliases": state.withLock { Array($0.aliases.keys).sorted() }
                case "session": state.withLock { $0.sessions.keys.sorted().map(String.init) }
                default: []
                }
            return Introspection.node(Introspection.properties, children: children)
        case .parent: return Introspection.node("")
        }
    }
}
