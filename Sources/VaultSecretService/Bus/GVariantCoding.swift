// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CGio

/// Converts between ``DBusValue`` and GLib's `GVariant`, with the typed constructors
/// (Swift cannot call the variadic `g_variant_new`).
package enum GVariantCoding {
    /// A new floating `GVariant` holding `value` (sunk by whatever takes it: a message body,
    /// a container, `g_variant_ref_sink`).
    package static func variant(_ value: DBusValue) -> OpaquePointer {
        switch value {
        case .string(let text): return g_variant_new_string(text)
        case .objectPath(let path): return g_variant_new_object_path(path)
        case .boolean(let flag): return g_variant_new_boolean(flag ? 1 : 0)
        case .uint32(let number): return g_variant_new_uint32(number)
        case .uint64(let number): return g_variant_new_uint64(guint64(number))
        case .bytes(let bytes):
            return withType("y") { type in
                bytes.withUnsafeBytes { raw in g_variant_new_fixed_array(type, raw.baseAddress, gsize(bytes.count), 1) }
            }
        case .array(let elementType, let items):
            return withType(elementType) { type in
                var children: [OpaquePointer?] = items.map { variant($0) }
                return g_variant_new_array(type, &children, gsize(children.count))
            }
        case .dictEntry(let key, let value): return g_variant_new_dict_entry(variant(key), variant(value))
        case .tuple(let items):
            var children: [OpaquePointer?] = items.map { variant($0) }
            return g_variant_new_tuple(&children, gsize(children.count))
        case .variant(let inner): return g_variant_new_variant(variant(inner))
        case .unsupported: return g_variant_new_string("")
        }
    }

    /// The value of `variant` (borrowed, not consumed).
    package static func value(_ variant: OpaquePointer) -> DBusValue {
        let type = String(cString: g_variant_get_type_string(variant))
        switch type {
        case "s": return .string(String(cString: g_variant_get_string(variant, nil)))
        case "o": return .objectPath(String(cString: g_variant_get_string(variant, nil)))
        case "b": return .boolean(g_variant_get_boolean(variant) != 0)
        case "u": return .uint32(g_variant_get_uint32(variant))
        case "t": return .uint64(UInt64(g_variant_get_uint64(variant)))
        case "ay":
            var count: gsize = 0
            guard let data = g_variant_get_fixed_array(variant, &count, 1), count > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: data, count: Int(count))))
        case "v":
            let inner = g_variant_get_variant(variant)!
            defer { g_variant_unref(inner) }
            return .variant(value(inner))
        default: break
        }
        if type.hasPrefix("a") || type.hasPrefix("(") || type.hasPrefix("{") {
            var children: [DBusValue] = []
            let count = g_variant_n_children(variant)
            children.reserveCapacity(Int(count))
            for index in 0..<count {
                let child = g_variant_get_child_value(variant, index)!
                children.append(value(child))
                g_variant_unref(child)
            }
            if type.hasPrefix("a") { return .array(elementType: String(type.dropFirst()), children) }
            if type.hasPrefix("{"), children.count == 2 { return .dictEntry(children[0], children[1]) }
            return .tuple(children)
        }
        return .unsupported(type)
    }

    /// Calls `body` with a `GVariantType` for `typeString`, freed afterwards.
    private static func withType<T>(_ typeString: String, _ body: (OpaquePointer) -> T) -> T {
        let type = g_variant_type_new(typeString)!
        defer { g_variant_type_free(type) }
        return body(type)
    }
}
