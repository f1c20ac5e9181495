// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// A D-Bus value as Swift sees it: what a method call's arguments become, and what a reply
/// is built from (``GVariantCoding`` converts both ways). Only the types the Secret Service
/// uses have cases; anything else a client sends (inside a variant) is ``unsupported(_:)``.
package indirect enum DBusValue: Sendable, Equatable {
    case string(String)
    case objectPath(String)
    case boolean(Bool)
    case uint32(UInt32)
    case uint64(UInt64)
    /// `ay`.
    case bytes([UInt8])
    /// `a` of `elementType` (a D-Bus type string), any element but bytes.
    case array(elementType: String, [DBusValue])
    /// `{kv}`, only inside an array.
    case dictEntry(DBusValue, DBusValue)
    case tuple([DBusValue])
    case variant(DBusValue)
    /// A value of another type (its type string), kept only to be refused.
    case unsupported(String)

    /// The D-Bus type string.
    var typeString: String {
        switch self {
        case .string: "s"
        case .objectPath: "o"
        case .boolean: "b"
        case .uint32: "u"
        case .uint64: "t"
        case .bytes: "ay"
        case .array(let element, _): "a" + element
        case .dictEntry(let key, let value): "{" + key.typeString + value.typeString + "}"
        case .tuple(let items): "(" + items.map(\.typeString).joined() + ")"
        case .variant: "v"
        case .unsupported(let type): type
        }
    }

    /// An `a{ss}`.
    package static func stringDictionary(_ dictionary: [String: String]) -> DBusValue {
        .array(elementType: "{ss}", dictionary.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .string($0.value)) })
    }

    /// An `a{sv}`.
    static func properties(_ dictionary: [(String, DBusValue)]) -> DBusValue {
        .array(elementType: "{sv}", dictionary.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }

    /// An `ao`.
    static func objectPaths(_ paths: [String]) -> DBusValue { .array(elementType: "o", paths.map { .objectPath($0) }) }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var objectPath: String? { if case .objectPath(let value) = self { value } else { nil } }
    var boolean: Bool? { if case .boolean(let value) = self { value } else { nil } }
    var variantContent: DBusValue? { if case .variant(let value) = self { value } else { nil } }

    /// The paths of an `ao`.
    var objectPaths: [String]? {
        guard case .array("o", let items) = self else { return nil }
        return items.compactMap(\.objectPath)
    }

    /// The entries of an `a{ss}` (a repeated key: the last one). Nil when two keys differ
    /// only in Unicode normalization: Swift's dictionary would merge them, silently losing
    /// one attribute, so such a set is refused (InvalidArgs) rather than changed.
    package var stringDictionary: [String: String]? {
        guard case .array("{ss}", let entries) = self else { return nil }
        var result: [String: String] = [:]
        for case .dictEntry(.string(let key), .string(let value)) in entries {
            if let index = result.index(forKey: key), !AttributeMatching.same(result[index].key, key) { return nil }
            result[key] = value
        }
        return result
    }

    /// The entries of an `a{sv}`, their variants opened (a repeated key: the last one).
    package var properties: [String: DBusValue]? {
        guard case .array("{sv}", let entries) = self else { return nil }
        var result: [String: DBusValue] = [:]
        for case .dictEntry(.string(let key), .variant(let value)) in entries { result[key] = value }
        return result
    }
}
