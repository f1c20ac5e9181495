// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CGio

/// One GDBus connection to a message bus. Every method is safe from any thread (GDBus
/// sends from its own worker thread); blocking calls (``call(_:_:_:_:)``) wait at most
/// ``callTimeout``.
final class BusConnection: @unchecked Sendable {
    // @unchecked: `pointer` is set once; GDBusConnection is thread-safe.
    let pointer: OpaquePointer
    /// Milliseconds a call to the bus may take.
    static let callTimeout: Int32 = 10_000

    /// Connects to the bus at `address` (authenticating as a client, saying `Hello`).
    init(address: String) throws(SecretServiceProvider.StartError) {
        var error: UnsafeMutablePointer<GError>?
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else {
            throw .noSessionBus(Self.take(error) ?? "cannot connect")
        }
        g_dbus_connection_set_exit_on_close(connection, 0)
        pointer = connection
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(pointer)) }

    /// Whether the connection has closed (the bus went away, or ``close()``).
    var isClosed: Bool { g_dbus_connection_is_closed(pointer) != 0 }

    /// This connection's unique name on the bus.
    var uniqueName: String { g_dbus_connection_get_unique_name(pointer).map { String(cString: $0) } ?? "" }

    /// A blocking method call; the reply's arguments, or the error's text.
    func call(
        _ destination: String, _ path: String, _ interface: String, _ method: String, _ arguments: [DBusValue] = []
    ) -> Result<[DBusValue], BusCallError> {
        var error: UnsafeMutablePointer<GError>?
        let parameters = GVariantCoding.variant(.tuple(arguments))
        guard
            let reply = g_dbus_connection_call_sync(
                pointer, destination, path, interface, method, parameters, nil, G_DBUS_CALL_FLAGS_NONE, Self.callTimeout, nil, &error)
        else {
            let name = error.flatMap { g_dbus_error_get_remote_error($0) }.map { pointer -> String in
                defer { g_free(pointer) }
                return String(cString: pointer)
            }
            return .failure(BusCallError(name: name ?? "", message: Self.take(error) ?? "no reply"))
        }
        defer { g_variant_unref(reply) }
        guard case .tuple(let values) = GVariantCoding.value(reply) else { return .success([]) }
        return .success(values)
    }

    /// Sends a signal from `path` to every client listening.
    func emit(path: String, interface: String, signal: String, _ arguments: [DBusValue]) {
        g_dbus_connection_emit_signal(pointer, nil, path, interface, signal, GVariantCoding.variant(.tuple(arguments)), nil)
    }

    /// Sends `message` (a reply or error built for an incoming call), consuming nothing.
    func send(_ message: OpaquePointer) {
        g_dbus_connection_send_message(pointer, message, G_DBUS_SEND_MESSAGE_FLAGS_NONE, nil, nil)
    }

    /// Flushes and closes the connection (at most ``callTimeout``).
    func close() {
        g_dbus_connection_flush_sync(pointer, nil, nil)
        g_dbus_connection_close_sync(pointer, nil, nil)
    }

    /// The message of `error`, which is freed.
    static func take(_ error: UnsafeMutablePointer<GError>?) -> String? {
        guard let error else { return nil }
        defer { g_error_free(error) }
        return error.pointee.message.map { String(cString: $0) }
    }
}

/// A failed call to the bus: the D-Bus error name (empty when GDBus made the error) and text.
struct BusCallError: Error, Sendable {
    var name: String
    var message: String
}
