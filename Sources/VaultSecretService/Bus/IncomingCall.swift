// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CGio
import Synchronization

/// A method call a client made to one of the provider's objects, answered exactly once:
/// by ``reply(_:)`` or ``fail(_:)`` (or, when the caller wants no reply, by neither).
/// Holds the `GDBusMessage` until then.
package final class IncomingCall: @unchecked Sendable {
    // @unchecked: the message is locked (immutable) and only read; `answered` is guarded.
    private let message: OpaquePointer
    /// Where the answer goes: the connection (or, in the fuzz harness, a collector).
    private let send: @Sendable (OpaquePointer) -> Void
    let sender: String
    let path: String
    let interface: String
    let member: String
    /// The argument types, e.g. `a{sv}(oayays)b`.
    let signature: String
    private let answered = Atomic<Bool>(false)

    /// Takes over `message` (one reference, released when the call is answered or dropped).
    convenience init(message: OpaquePointer, connection: BusConnection) {
        self.init(message: message) { connection.send($0) }
    }

    /// Takes over `message`; the answer (a `GDBusMessage`, borrowed) goes to `send`.
    package init(message: OpaquePointer, send: @escaping @Sendable (OpaquePointer) -> Void) {
        self.message = message
        self.send = send
        sender = g_dbus_message_get_sender(message).map { String(cString: $0) } ?? ""
        path = g_dbus_message_get_path(message).map { String(cString: $0) } ?? ""
        interface = g_dbus_message_get_interface(message).map { String(cString: $0) } ?? ""
        member = g_dbus_message_get_member(message).map { String(cString: $0) } ?? ""
        signature = g_dbus_message_get_signature(message).map { String(cString: $0) } ?? ""
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(message)) }

    /// The arguments (decoded now, off the bus thread).
    func arguments() -> [DBusValue] {
        guard let body = g_dbus_message_get_body(message), case .tuple(let values) = GVariantCoding.value(body) else { return [] }
        return values
    }

    /// Answers with `values` as the reply's arguments.
    func reply(_ values: [DBusValue]) {
        guard answered.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        let reply = g_dbus_message_new_method_reply(message)!
        defer { g_object_unref(UnsafeMutableRawPointer(reply)) }
        g_dbus_message_set_body(reply, GVariantCoding.variant(.tuple(values)))
        send(reply)
    }

    /// Answers with a D-Bus error.
    func fail(_ fault: ServiceFault) {
        guard answered.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        let reply = g_dbus_message_new_method_error_literal(message, fault.name, fault.message)!
        defer { g_object_unref(UnsafeMutableRawPointer(reply)) }
        send(reply)
    }
}
