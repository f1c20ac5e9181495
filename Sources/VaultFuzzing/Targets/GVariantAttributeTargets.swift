// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CGio
import VaultSecretService

/// The provider's decoding of D-Bus values (`GVariantCoding`, `DBusValue`): attribute sets
/// (`a{ss}`), the `Secret` struct (`(oayays)`), property sets (`a{sv}`), variants, and any
/// other D-Bus type, from bytes GLib reads as untrusted data (then their normal form, as
/// GDBus checks a message off the wire).
///
/// Input: a byte picking the type (`a{ss}`, `(oayays)`, `a{sv}`, `v`, `a{o(oayays)}`, or 5: a
/// length byte and a type from the input), then the value's serialized bytes. Invariants:
/// - decode then encode gives the same type and the same normal-form bytes (for every value
///   of the types the provider reads; a value holding another type is only refused);
/// - an `a{ss}` is refused (two names equal only after Unicode normalization) or keeps
///   every attribute name byte for byte, with the last value given for it, and survives
///   encode and decode unchanged; an `a{sv}` keeps every name.
enum GVariantAttributeTargets {
    static let types = ["a{ss}", "(oayays)", "a{sv}", "v", "a{o(oayays)}"]

    static let attributes = FuzzTarget(
        name: "gvariant-attributes",
        summary: "D-Bus values (a{ss}, (oayays), a{sv}, any) decoded: re-encode to the same normal form, no attribute lost"
    ) { bytes throws(InvariantViolation) in
        var input = bytes[...]
        let choice = Int(input.popFirst() ?? 0) % (types.count + 1)
        var type = choice < types.count ? types[choice] : ""
        if choice == types.count {
            let length = Int(input.popFirst() ?? 0) % 33
            type = String(decoding: input.prefix(length), as: UTF8.self)
            input = input.dropFirst(length)
        }
        // GLib reads C strings: a NUL would cut the type short where Swift does not.
        guard !type.utf8.contains(0), g_variant_is_signature(type) != 0, g_variant_type_string_is_valid(type) != 0,
            let variantType = g_variant_type_new(type)
        else {
            return
        }
        defer { g_variant_type_free(variantType) }
        let data = Array(input)
        let raw = data.withUnsafeBytes { raw in g_bytes_new(raw.baseAddress, gsize(raw.count)) }
        defer { g_bytes_unref(raw) }
        let untrusted = g_variant_ref_sink(g_variant_new_from_bytes(variantType, raw, 0))
        defer { g_variant_unref(untrusted) }
        guard let normal = g_variant_get_normal_form(untrusted) else { throw InvariantViolation("GLib gave no normal form") }
        defer { g_variant_unref(normal) }

        let value = GVariantCoding.value(normal)
        if !holdsUnsupported(value) {
            guard let encoded = g_variant_ref_sink(GVariantCoding.variant(value)) else { throw InvariantViolation("\(type): no encoding") }
            defer { g_variant_unref(encoded) }
            let encodedType = String(cString: g_variant_get_type_string(encoded))
            try require(encodedType == type, "\(type) re-encodes as \(encodedType)")
            try require(serialized(encoded) == serialized(normal), "\(type) re-encodes to other bytes")
        }
        if case .array("{ss}", let entries) = value { try checkAttributes(value, entries) }
        if case .array("{sv}", let entries) = value, let properties = value.properties {
            for case .dictEntry(.string(let name), _) in entries {
                try require(properties.keys.contains { AttributeMatching.same($0, name) }, "a{sv} lost the name \(name.debugDescription)")
            }
        }
    }

    /// An `a{ss}`: refused only for names equal after normalization; else every name kept
    /// byte for byte with its last value, and the set encodes and decodes to itself.
    static func checkAttributes(_ value: DBusValue, _ entries: [DBusValue]) throws(InvariantViolation) {
        var pairs: [(String, String)] = []
        for case .dictEntry(.string(let name), .string(let text)) in entries { pairs.append((name, text)) }
        guard let attributes = value.stringDictionary else {
            let clash = pairs.indices.contains { i in
                pairs.indices.contains { j in pairs[i].0 == pairs[j].0 && !AttributeMatching.same(pairs[i].0, pairs[j].0) }
            }
            try require(clash, "an a{ss} without names equal only after normalization was refused")
            return
        }
        for (index, (name, _)) in pairs.enumerated() {
            let last = pairs[index...].last { AttributeMatching.same($0.0, name) }?.1 ?? ""
            let kept = attributes.first { AttributeMatching.same($0.key, name) }
            try require(kept != nil, "the attribute \(name.debugDescription) was lost")
            try require(kept.map { AttributeMatching.same($0.value, last) } == true, "the attribute \(name.debugDescription) lost its last value")
        }
        try require(AttributeMatching.equal(attributes, attributes), "an attribute set is not equal to itself")
        guard let encoded = g_variant_ref_sink(GVariantCoding.variant(.stringDictionary(attributes))) else {
            throw InvariantViolation("an attribute set has no encoding")
        }
        defer { g_variant_unref(encoded) }
        guard let again = GVariantCoding.value(encoded).stringDictionary else { throw InvariantViolation("an encoded attribute set is refused") }
        try require(AttributeMatching.equal(again, attributes), "an attribute set changed through encode and decode")
    }

    /// Whether `value` holds a type the provider does not read (kept only to be refused).
    static func holdsUnsupported(_ value: DBusValue) -> Bool {
        switch value {
        case .unsupported: true
        case .array(_, let items), .tuple(let items): items.contains(where: holdsUnsupported)
        case .dictEntry(let key, let inner): holdsUnsupported(key) || holdsUnsupported(inner)
        case .variant(let inner): holdsUnsupported(inner)
        case .string, .objectPath, .boolean, .uint32, .uint64, .bytes: false
        }
    }

    /// The serialized bytes of `variant` (borrowed).
    static func serialized(_ variant: OpaquePointer) -> [UInt8] {
        let size = Int(g_variant_get_size(variant))
        guard size > 0, let data = g_variant_get_data(variant) else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }
}
