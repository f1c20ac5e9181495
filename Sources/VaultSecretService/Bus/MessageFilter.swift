// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CGio

/// Takes the method calls to the provider's objects (every path under
/// `/org/freedesktop/secrets`, and introspection of its parents) off a connection, on
/// GDBus's worker thread, and hands each to ``onCall`` at once: the handler must not block
/// (it starts a Task). Also reports clients leaving the bus (`NameOwnerChanged` with no
/// new owner). Everything else goes on to GDBus.
final class MessageFilter: @unchecked Sendable {
    // @unchecked: all fields are set once, before the filter is installed.
    let connection: BusConnection
    let onCall: @Sendable (IncomingCall) -> Void
    let onClientGone: @Sendable (String) -> Void
    private var filterID: UInt32 = 0

    /// The root of the provider's objects.
    static let root = "/org/freedesktop/secrets"
    /// The parents of ``root``, whose introspection the provider answers too.
    static let parents: Set<String> = ["/", "/org", "/org/freedesktop"]

    init(connection: BusConnection, onCall: @escaping @Sendable (IncomingCall) -> Void, onClientGone: @escaping @Sendable (String) -> Void) {
        self.connection = connection
        self.onCall = onCall
        self.onClientGone = onClientGone
    }

    /// Installs the filter and asks the bus for `NameOwnerChanged`. The filter holds this
    /// object until ``remove()``.
    func install() {
        let me = Unmanaged.passRetained(self).toOpaque()
        filterID = g_dbus_connection_add_filter(
            connection.pointer,
            { _, message, incoming, userData in
                guard let message, let userData else { return message }
                guard incoming != 0 else { return message }
                return Unmanaged<MessageFilter>.fromOpaque(userData).takeUnretainedValue().filter(message)
            }, me,
            { userData in if let userData { Unmanaged<MessageFilter>.fromOpaque(userData).release() } })
        _ = connection.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch",
            [.string("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged'")])
    }

    /// Removes the filter (no call is taken afterwards).
    func remove() {
        if filterID != 0 { g_dbus_connection_remove_filter(connection.pointer, filterID) }
        filterID = 0
    }

    /// The message back for GDBus, or nil when it was taken.
    private func filter(_ message: OpaquePointer) -> OpaquePointer? {
        switch g_dbus_message_get_message_type(message) {
        case G_DBUS_MESSAGE_TYPE_METHOD_CALL:
            let path = g_dbus_message_get_path(message).map { String(cString: $0) } ?? ""
            let interface = g_dbus_message_get_interface(message).map { String(cString: $0) } ?? ""
            guard interface != "org.freedesktop.DBus.Peer" else { return message }
            let ours = path == Self.root || path.hasPrefix(Self.root + "/")
            let introspection = Self.parents.contains(path) && interface == "org.freedesktop.DBus.Introspectable"
            guard ours || introspection else { return message }
            onCall(IncomingCall(message: message, connection: connection))
            return nil
        case G_DBUS_MESSAGE_TYPE_SIGNAL:
            if let member = g_dbus_message_get_member(message), String(cString: member) == "NameOwnerChanged",
                let sender = g_dbus_message_get_sender(message), String(cString: sender) == "org.freedesktop.DBus",
                let body = g_dbus_message_get_body(message),
                case .tuple(let values) = GVariantCoding.value(body), values.count == 3,
                let name = values[0].string, name.hasPrefix(":"), values[2].string == ""
            {
                onClientGone(name)
            }
            return message
        default: return message
        }
    }
}
