// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Glibc
import Logging
import VaultSecretService
import VaultStore
import VaultSync

/// The Secret Service provider (`vault agent --secret-service`, docs/secret-service.md): a
/// sequence of method calls to its real routing (``ProviderCore``), over a vault in memory
/// and with no bus. Input: calls separated by ``delimiter`` (at most ``maxCalls``), each an object
/// byte, a method byte (``SecretServiceCalls/methods``), a flags byte, then the body as GLib reads
/// it. Invariants: one documented answer per call, `AccessDenied` for another uid, no change from
/// a failed or reading call, and other programs' items changed only by a call addressed to them.
/// The flags and the invariants in full: docs/fuzzing.md, "The Secret Service target's input".
enum SecretServiceTargets {
    static let delimiter: [UInt8] = Array("\n--\n".utf8)
    static let maxCalls = 16

    static let client = ":1.42"
    static let otherClient = ":1.77"
    static let stranger = ":1.99"
    static let root = "/org/freedesktop/secrets"

    /// vault's own item (in `login`, in vault's shape).
    static let credentialKey = CredentialKey(server: "git.example.com", account: "alice")
    /// Items of other programs: one in `login` whose `user` and `server` match vault's
    /// item but with another protocol, one in another collection.
    static let foreign: [ServiceItem] = [
        ServiceItem(
            reference: ServiceItem.Reference(collection: "login", id: "s1a2b3c4d5e6f7a8b"), label: "imap",
            attributes: ["user": "alice", "server": "git.example.com", "protocol": "imap"], contentType: "text/plain",
            secret: Secret("imap secret"), created: 1_700_000_000, modified: 1_700_000_000),
        ServiceItem(
            reference: ServiceItem.Reference(collection: "other", id: "s0f1e2d3c4b5a6978"), label: "keyring",
            attributes: ["service": "svc", "username": "bob", "application": "Python keyring library"],
            contentType: "application/octet-stream", secret: Secret(bytes: [0, 1, 2, 255]), created: 1_700_000_000,
            modified: 1_700_000_100),
    ]

    static func initialContents() -> VaultContents {
        VaultContents(
            credentials: [credentialKey: Credential(key: credentialKey, secret: Secret("hunter2"), label: "alice@git.example.com")],
            collections: ["other": ServiceCollection(id: "other", label: "Other", created: 1_700_000_000, modified: 1_700_000_000)],
            items: Dictionary(uniqueKeysWithValues: foreign.map { ($0.reference, $0) }))
    }

    /// The objects a call may go to, before those replies named.
    static let paths: [String] = [
        root, "\(root)/collection/login", "\(root)/aliases/default", "\(root)/collection/other",
        "\(root)/collection/login/\(foreign[0].reference.id)", "\(root)/collection/other/\(foreign[1].reference.id)",
        "\(root)/collection/login/\(ModelItem.id(for: credentialKey))", "\(root)/session/1", "\(root)/prompt/1", "\(root)/collection", "/",
        "\(root)/collection/nosuch", "\(root)/aliases/default/\(foreign[0].reference.id)", "/org/freedesktop",
    ]

    static let logger = Logger(label: "vault-fuzz", factory: { _ in SwiftLogNoOpLogHandler() })

    static let call = FuzzTarget(
        name: "secret-service-call",
        summary: "D-Bus method calls to the Secret Service provider: one documented answer each, no change but the ones asked"
    ) { bytes throws(InvariantViolation) in
        let backing = InMemoryServiceBacking(initialContents())
        let core = ProviderCore(backing: backing, logger: logger)
        core.state.withLock { $0.uids = [client: getuid(), otherClient: getuid(), stranger: getuid() &+ 1] }
        let executor = InlineExecutor()
        var learned: [String] = []
        for (index, chunk) in chunks(bytes).enumerated() {
            try perform(chunk, serial: UInt32(index + 1), core: core, backing: backing, executor: executor, learned: &learned)
        }
    }

    /// `bytes` split at every ``delimiter``, at most ``maxCalls`` pieces.
    static func chunks(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var pieces: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        while index + delimiter.count <= bytes.count, pieces.count < maxCalls - 1 {
            if bytes[index..<index + delimiter.count].elementsEqual(delimiter) {
                pieces.append(bytes[start..<index])
                index += delimiter.count
                start = index
            } else {
                index += 1
            }
        }
        pieces.append(bytes[start...])
        return pieces
    }

    /// Makes one call and checks its answer and what it changed.
    static func perform(
        _ chunk: ArraySlice<UInt8>, serial: UInt32, core: ProviderCore, backing: InMemoryServiceBacking, executor: InlineExecutor,
        learned: inout [String]
    ) throws(InvariantViolation) {
        var input = chunk
        let known = paths + learned
        var path = known[Int(input.popFirst() ?? 0) % known.count]
        let method = SecretServiceCalls.methods[Int(input.popFirst() ?? 0) % SecretServiceCalls.methods.count]
        let flags = input.popFirst() ?? 0
        var signature = method.arguments
        if flags & 1 != 0 {
            let length = Int(input.popFirst() ?? 0) % 33
            signature = String(decoding: take(&input, length), as: UTF8.self)
        }
        if flags & 2 != 0 {
            let length = Int(input.popFirst() ?? 0)
            path = String(decoding: take(&input, length), as: UTF8.self)
        }
        let sender = flags & 4 != 0 ? stranger : flags & 8 != 0 ? otherClient : client
        if flags & 16 != 0 { backing.state.withLock { $0.locked = true } }
        backing.state.withLock { $0.keyCached = flags & 32 == 0 }
        guard
            let message = SecretServiceCalls.message(
                path: path, method, signature: signature, data: Array(input), sender: sender, serial: serial)
        else { return }

        let target = Target(path, alias: core.alias)
        let before = backing.current
        let answers = AnswerBox()
        let call = IncomingCall(message: message) { reply in
            let answer = SecretServiceCalls.answer(reply)
            answers.value.withLock { $0.append(answer) }
        }
        guard executor.run({ await core.handle(call) }) != nil else {
            throw InvariantViolation("\(method.member) at \(path): no answer within 10 s")
        }
        let after = backing.current
        let got = answers.value.withLock { $0 }
        let what = "\(method.interface).\(method.member)(\(signature)) at \(path) from \(sender)"
        try require(got.count == 1, "\(what): \(got.count) answers")
        let answer = got[0]
        let parent = ["/", "/org", "/org/freedesktop"].contains(path)
        if let error = answer.errorName {
            try require(SecretServiceCalls.errors.contains(error), "\(what): an undocumented error \(error)")
            try require(after == before, "\(what): failed (\(error)) but changed the contents")
        } else {
            try require(answer.signature == method.reply, "\(what): a reply of (\(answer.signature)), not (\(method.reply))")
            if !writes(method) { try require(after == before, "\(what): a call that only reads changed the contents") }
        }
        if sender == stranger, !parent {
            try require(answer.errorName == "org.freedesktop.DBus.Error.AccessDenied", "\(what): another uid got \(answer)")
        }
        for item in foreign {
            guard let old = before.items[item.reference], old != after.items[item.reference] else { continue }
            let new = after.items[item.reference]
            let reference = item.reference
            let addressed =
                target == .item(reference.collection, reference.id)
                && [("org.freedesktop.Secret.Item", "Delete"), ("org.freedesktop.Secret.Item", "SetSecret"), (SecretServiceCalls.properties, "Set")]
                    .contains { $0 == (method.interface, method.member) }
            let collectionDeleted = target == .collection(reference.collection) && method.member == "Delete" && new == nil
            // A replace updates one item of the attributes and deletes the others.
            let replacement =
                new.map { sameAttributes($0.attributes, old.attributes) }
                ?? (after.items.values.contains { $0.reference.collection == reference.collection && sameAttributes($0.attributes, old.attributes) }
                    || (reference.collection == ServiceCollection.loginID
                        && ServiceItemShape.credentialKey(for: old.attributes).map { after.credentials[$0] != nil } == true))
            let replaced = target == .collection(reference.collection) && method.member == "CreateItem" && replacement
            try require(addressed || collectionDeleted || replaced, "\(what): changed another program's item \(reference.id) it did not address")
        }
        for path in answer.paths where path.hasPrefix(root + "/") && !known.contains(path) && learned.count < 32 { learned.append(path) }
    }

    /// The calls that may change the contents.
    static func writes(_ method: SecretServiceCalls.Method) -> Bool {
        switch (method.interface, method.member) {
        case (SecretServiceCalls.service, "CreateCollection"), (SecretServiceCalls.collection, "Delete"),
            (SecretServiceCalls.collection, "CreateItem"), (SecretServiceCalls.item, "Delete"), (SecretServiceCalls.item, "SetSecret"),
            (SecretServiceCalls.properties, "Set"):
            true
        default: false
        }
    }

    /// The next `count` bytes of `input` (fewer at its end), taken off it.
    static func take(_ input: inout ArraySlice<UInt8>, _ count: Int) -> [UInt8] {
        let taken = Array(input.prefix(count))
        input = input.dropFirst(count)
        return taken
    }

    /// Attribute sets equal byte for byte (Swift's `==` on strings is canonical equivalence).
    static func sameAttributes(_ a: [String: String], _ b: [String: String]) -> Bool {
        a.count == b.count
            && a.allSatisfy { entry in b.contains { Array($0.key.utf8) == Array(entry.key.utf8) && Array($0.value.utf8) == Array(entry.value.utf8) } }
    }

    /// The collection or item a path names (aliases resolved as the provider resolves them).
    enum Target: Equatable {
        case collection(String)
        case item(String, String)
        case other

        init(_ path: String, alias: (String) -> String?) {
            let parts = path.hasPrefix(root + "/") ? path.dropFirst(root.count + 1).split(separator: "/").map(String.init) : []
            switch (parts.first, parts.count) {
            case ("collection"?, 2): self = .collection(parts[1])
            case ("collection"?, 3): self = .item(parts[1], parts[2])
            case ("aliases"?, 2): self = alias(parts[1]).map { .collection($0) } ?? .other
            case ("aliases"?, 3): self = alias(parts[1]).map { .item($0, parts[2]) } ?? .other
            default: self = .other
            }
        }
    }
}

/// The answers one call got.
private final class AnswerBox: Sendable {
    let value = Locked<[SecretServiceCalls.Answer]>([])
}
