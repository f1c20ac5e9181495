// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CGio

/// The method calls the `secret-service-call` target makes, and the answers it takes: a
/// real `GDBusMessage` whose body GLib parsed from the input's bytes (untrusted data, then
/// its normal form: the checks GDBus makes on a message off the wire), and what came back.
enum SecretServiceCalls {
    /// A method the provider offers (or, last, one it does not): where, and its argument
    /// and reply signatures as the specification (and Introspection.swift) gives them.
    struct Method {
        var interface: String
        var member: String
        var arguments: String
        var reply: String
    }

    static let service = "org.freedesktop.Secret.Service"
    static let collection = "org.freedesktop.Secret.Collection"
    static let item = "org.freedesktop.Secret.Item"
    static let properties = "org.freedesktop.DBus.Properties"

    static let methods: [Method] = [
        Method(interface: service, member: "OpenSession", arguments: "sv", reply: "vo"),
        Method(interface: service, member: "CreateCollection", arguments: "a{sv}s", reply: "oo"),
        Method(interface: service, member: "SearchItems", arguments: "a{ss}", reply: "aoao"),
        Method(interface: service, member: "Unlock", arguments: "ao", reply: "aoo"),
        Method(interface: service, member: "Lock", arguments: "ao", reply: "aoo"),
        Method(interface: service, member: "GetSecrets", arguments: "aoo", reply: "a{o(oayays)}"),
        Method(interface: service, member: "ReadAlias", arguments: "s", reply: "o"),
        Method(interface: service, member: "SetAlias", arguments: "so", reply: ""),
        Method(interface: collection, member: "Delete", arguments: "", reply: "o"),
        Method(interface: collection, member: "SearchItems", arguments: "a{ss}", reply: "ao"),
        Method(interface: collection, member: "CreateItem", arguments: "a{sv}(oayays)b", reply: "oo"),
        Method(interface: item, member: "Delete", arguments: "", reply: "o"),
        Method(interface: item, member: "GetSecret", arguments: "o", reply: "(oayays)"),
        Method(interface: item, member: "SetSecret", arguments: "(oayays)", reply: ""),
        Method(interface: "org.freedesktop.Secret.Session", member: "Close", arguments: "", reply: ""),
        Method(interface: "org.freedesktop.Secret.Prompt", member: "Prompt", arguments: "s", reply: ""),
        Method(interface: "org.freedesktop.Secret.Prompt", member: "Dismiss", arguments: "", reply: ""),
        Method(interface: properties, member: "Get", arguments: "ss", reply: "v"),
        Method(interface: properties, member: "GetAll", arguments: "s", reply: "a{sv}"),
        Method(interface: properties, member: "Set", arguments: "ssv", reply: ""),
        Method(interface: "org.freedesktop.DBus.Introspectable", member: "Introspect", arguments: "", reply: "s"),
        Method(interface: "org.example.NotSecrets", member: "Frobnicate", arguments: "s", reply: ""),
    ]

    /// The D-Bus errors the provider documents; any other is a finding.
    static let errors: Set<String> = [
        "org.freedesktop.DBus.Error.InvalidArgs", "org.freedesktop.DBus.Error.NotSupported", "org.freedesktop.DBus.Error.Failed",
        "org.freedesktop.DBus.Error.LimitsExceeded", "org.freedesktop.DBus.Error.AccessDenied", "org.freedesktop.DBus.Error.UnknownMethod",
        "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownProperty",
        "org.freedesktop.DBus.Error.PropertyReadOnly", "org.freedesktop.Secret.Error.IsLocked", "org.freedesktop.Secret.Error.NoSession",
        "org.freedesktop.Secret.Error.NoSuchObject",
    ]

    /// What came back for one call: a reply (its signature, the object paths in it) or an error.
    struct Answer: Sendable, Equatable {
        var errorName: String?
        var signature: String
        /// Every object path in the reply, in order.
        var paths: [String]
    }

    /// A method call message from `sender` with serial `serial`; its body is `data` read as
    /// `(signature)` by GLib (untrusted, then normal form). Nil when GLib refuses the path or
    /// the signature (the bus would never deliver such a call).
    static func message(
        path: String, _ method: Method, signature: String, data: [UInt8], sender: String, serial: UInt32
    ) -> OpaquePointer? {
        // GLib reads C strings: a NUL would cut them short where Swift does not.
        guard !path.utf8.contains(0), !signature.utf8.contains(0), g_variant_is_object_path(path) != 0, g_variant_is_signature(signature) != 0,
            g_variant_type_string_is_valid("(\(signature))") != 0
        else { return nil }
        guard let message = g_dbus_message_new_method_call("org.freedesktop.secrets", path, method.interface, method.member) else {
            return nil
        }
        guard let type = g_variant_type_new("(\(signature))") else {
            g_object_unref(UnsafeMutableRawPointer(message))
            return nil
        }
        defer { g_variant_type_free(type) }
        g_dbus_message_set_sender(message, sender)
        g_dbus_message_set_serial(message, serial)
        let bytes = data.withUnsafeBytes { raw in g_bytes_new(raw.baseAddress, gsize(raw.count)) }
        defer { g_bytes_unref(bytes) }
        let untrusted = g_variant_ref_sink(g_variant_new_from_bytes(type, bytes, 0))
        defer { g_variant_unref(untrusted) }
        let body = g_variant_get_normal_form(untrusted)
        defer { g_variant_unref(body) }
        g_dbus_message_set_body(message, body)
        return message
    }

    /// What `message` (a reply or an error, borrowed) says.
    static func answer(_ message: OpaquePointer) -> Answer {
        let errorName =
            g_dbus_message_get_message_type(message) == G_DBUS_MESSAGE_TYPE_ERROR
            ? (g_dbus_message_get_error_name(message).map { String(cString: $0) } ?? "") : nil
        let signature = g_dbus_message_get_signature(message).map { String(cString: $0) } ?? ""
        var paths: [String] = []
        if let body = g_dbus_message_get_body(message) { collectPaths(body, into: &paths) }
        return Answer(errorName: errorName, signature: signature, paths: paths)
    }

    /// The object paths in `value` (borrowed), depth first.
    private static func collectPaths(_ value: OpaquePointer, into paths: inout [String]) {
        if String(cString: g_variant_get_type_string(value)) == "o" {
            paths.append(String(cString: g_variant_get_string(value, nil)))
            return
        }
        guard g_variant_is_container(value) != 0 else { return }
        for index in 0..<g_variant_n_children(value) {
            guard let child = g_variant_get_child_value(value, index) else { continue }
            collectPaths(child, into: &paths)
            g_variant_unref(child)
        }
    }
}
