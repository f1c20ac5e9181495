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
            || Self.saysItemVanished(message)
    }

    /// True for the words services use for an object that is not there (any more): libsecret's,
    /// KeePassXC's, and GNOME Keyring's (`Object does not exist at path`, `...Error.NoSuchObject`).
    /// Also used on a message already turned into a `VaultError`.
    static func saysItemVanished(_ message: String) -> Bool {
        ["No such secret item", "No such object path", "No such interface", "NoSuchObject", "Object does not exist at path"]
            .contains { message.contains($0) }
    }

    /// True for GDBus's words for a call on a closed bus connection (or one pending when the
    /// bus daemon closed it), in a message already turned into a `VaultError`:
    /// `SessionBus` replaces that connection before the next call.
    static func saysConnectionClosed(_ message: String) -> Bool {
        message.contains("The connection is closed")
    }

    /// True for a service's words for a transfer session it does not know (any more): the
    /// service restarted on the same bus, and the session libsecret opened with the old one
    /// is gone (GNOME Keyring: `The session wrapping the secret does not exist`; the
    /// specification's `NoSession`). `SessionBus.forgetService()` then lets a new one open.
    static func saysSessionGone(_ message: String) -> Bool {
        message.contains("NoSession") || message.contains("session wrapping the secret does not exist")
    }

    /// True when libsecret says the item or collection is locked.
    var isLocked: Bool {
        domain == secret_error_get_quark() && code == Int32(SECRET_ERROR_IS_LOCKED.rawValue)
    }
}

enum GLibMemory {
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
}
