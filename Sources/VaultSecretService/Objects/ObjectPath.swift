// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The provider's object paths: the service, collections (by id, or by alias under
/// `/aliases/`), their items, sessions and prompts.
enum ObjectPath: Equatable, Sendable {
    case service
    case collection(String)
    case item(collection: String, id: String)
    case session(Int)
    case prompt(Int)
    /// `/`, `/org`, `/org/freedesktop`: introspection only.
    case parent(String)
    /// `/org/freedesktop/secrets/collection`, `.../session` and the like: introspection only.
    case directory(String)

    static let root = "/org/freedesktop/secrets"

    static func collectionPath(_ id: String) -> String { "\(root)/collection/\(id)" }
    static func itemPath(_ collection: String, _ id: String) -> String { "\(root)/collection/\(collection)/\(id)" }
    static func sessionPath(_ number: Int) -> String { "\(root)/session/\(number)" }
    static func promptPath(_ number: Int) -> String { "\(root)/prompt/\(number)" }

    /// The object at `path`, an alias resolved with `alias`; nil for a path the provider
    /// has no object at.
    init?(_ path: String, alias: (String) -> String?) {
        if ["/", "/org", "/org/freedesktop"].contains(path) {
            self = .parent(path)
            return
        }
        guard path == Self.root || path.hasPrefix(Self.root + "/") else { return nil }
        let parts = path.dropFirst(Self.root.count).split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard parts.allSatisfy(Self.isPathElement) else { return nil }
        switch parts.count {
        case 0: self = .service
        case 1 where ["collection", "aliases", "session", "prompt"].contains(parts[0]): self = .directory(parts[0])
        case 2 where parts[0] == "collection": self = .collection(parts[1])
        case 2 where parts[0] == "aliases":
            guard let id = alias(parts[1]) else { return nil }
            self = .collection(id)
        case 2 where parts[0] == "session":
            guard let number = Int(parts[1]) else { return nil }
            self = .session(number)
        case 2 where parts[0] == "prompt":
            guard let number = Int(parts[1]) else { return nil }
            self = .prompt(number)
        case 3 where parts[0] == "collection": self = .item(collection: parts[1], id: parts[2])
        case 3 where parts[0] == "aliases":
            guard let id = alias(parts[1]) else { return nil }
            self = .item(collection: id, id: parts[2])
        default: return nil
        }
    }

    /// `[A-Za-z0-9_]+`, at most 64 bytes.
    static func isPathElement(_ element: String) -> Bool {
        !element.isEmpty && element.utf8.count <= 64
            && element.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F }
    }
}
