// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CLibSecret

// Ownership helpers for the GLib values libsecret and GDBus hand back. Each helper states
// who frees what; callers never free a value twice or keep one past its owner.

/// A GError taken apart: its domain, code and message. The GError itself is freed.
struct GLibError: Sendable {
    var domain: GQuark
    var code: Int32
    var message: String

    /// Takes ownership of `*error` (if set): copies it out, frees it with `g_error_free`
    /// and sets `*error` to nil.
    static func take(_ error: inout UnsafeMutablePointer<GError>?) -> GLibError? {
        guard let pointer = error else { return nil }
        defer {
            g_error_free(pointer)
            error = nil
        }
        let message = pointer.pointee.message.map { String(cString: $0) } ?? "unknown error"
        return GLibError(domain: pointer.pointee.domain, code: pointer.pointee.code, message: message)
    }

    /// True when this is the GDBus error `code` (`G_DBUS_ERROR_*`).
    func isDBusError(_ codes: GDBusError...) -> Bool {
        domain == g_dbus_error_quark() && codes.contains { Int32($0.rawValue) == code }
    }

    /// True when this is a D-Bus error saying that nobody owns the name we called.
    var isNoOwner: Bool {
        isDBusError(G_DBUS_ERROR_SERVICE_UNKNOWN, G_DBUS_ERROR_NAME_HAS_NO_OWNER)
    }

    /// True when the call ran out of time.
    var isTimeout: Bool {
        isDBusError(G_DBUS_ERROR_TIMEOUT, G_DBUS_ERROR_TIMED_OUT, G_DBUS_ERROR_NO_REPLY)
            || (domain == g_io_error_quark() && code == Int32(G_IO_ERROR_TIMED_OUT.rawValue))
    }

    /// True when an item vanished while we looked at it (deleted by another client).
    var isVanishedItem: Bool {
        (domain == secret_error_get_quark() && code == Int32(SECRET_ERROR_NO_SUCH_OBJECT.rawValue))
            || isDBusError(G_DBUS_ERROR_UNKNOWN_OBJECT, G_DBUS_ERROR_UNKNOWN_METHOD, G_DBUS_ERROR_UNKNOWN_INTERFACE)
            || message.contains("No such secret item") || message.contains("No such object path")
    }

    /// True when libsecret says the item or collection is locked.
    var isLocked: Bool {
        domain == secret_error_get_quark() && code == Int32(SECRET_ERROR_IS_LOCKED.rawValue)
    }
}

enum GLibMemory {
    /// Copies a `gchar *` that we own into a String and frees it with `g_free`.
    static func takeString(_ pointer: UnsafeMutablePointer<gchar>?) -> String? {
        guard let pointer else { return nil }
        defer { g_free(pointer) }
        return String(cString: pointer)
    }

    /// A new `GHashTable` of UTF-8 string keys and values, each a `g_strdup` copy the
    /// table frees. The caller owns the table (one reference; `g_hash_table_unref`).
    static func newStringTable(_ entries: [String: String]) -> OpaquePointer {
        let table: OpaquePointer = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free)
        for (key, value) in entries {
            g_hash_table_insert(table, g_strdup(key), g_strdup(value))
        }
        return table
    }

    /// Runs `body` with a string table holding `entries`, and unrefs the table after.
    static func withStringTable<R>(
        _ entries: [String: String], _ body: (OpaquePointer) throws(VaultError) -> R
    ) throws(VaultError) -> R {
        let table = newStringTable(entries)
        defer { g_hash_table_unref(table) }
        return try body(table)
    }

    /// Copies a `GHashTable` of UTF-8 strings into a dictionary; the table is not freed.
    static func stringDictionary(_ table: OpaquePointer) -> [String: String] {
        var result: [String: String] = [:]
        var iterator = GHashTableIter()
        g_hash_table_iter_init(&iterator, table)
        var key: gpointer? = nil
        var value: gpointer? = nil
        while g_hash_table_iter_next(&iterator, &key, &value) != 0 {
            guard let key, let value else { continue }
            result[String(cString: key.assumingMemoryBound(to: CChar.self))] =
                String(cString: value.assumingMemoryBound(to: CChar.self))
        }
        return result
    }

    /// The `data` pointers of a `GList`, in order; the list is not freed.
    static func elements(of list: UnsafeMutablePointer<GList>?) -> [gpointer] {
        var result: [gpointer] = []
        var node = list
        while let current = node {
            if let data = current.pointee.data { result.append(data) }
            node = current.pointee.next
        }
        return result
    }
}
