// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CLibSecret
import VaultSync

/// The process's session bus connection, and the libsecret service vault uses on it: normally
/// GLib's shared connection (`g_bus_get`), one reference of vault's, so the probe, every store
/// operation and libsecret share one connection. It is told not to end the process when the bus
/// goes away (a library must not kill its host). A connection the bus closed is replaced by the
/// next `connection()`, and when GLib still hands out the closed one, vault opens its own to the
/// same address. libsecret's calls (`service(on:)`) always go through a `SecretService` made on
/// the connection vault uses. Why: docs/secret-service.md, "What crosses the bus, and how often".
enum SessionBus {
    /// What vault holds, as addresses (`identity(of:)`): each with one reference of vault's.
    private struct Held {
        /// GLib's shared connection, while vault uses it.
        var shared: UInt?
        /// vault's own connection, once the shared one was closed and GLib kept it.
        var owned: UInt?
        /// The libsecret service on the connection vault uses, and that connection.
        var service: (connection: UInt, service: UInt)?
    }

    private static let held = Locked(Held())

    /// The connection vault uses, with one reference the caller must `g_object_unref`; a
    /// closed one is replaced first (see the type's comment).
    static func connection() throws(GLibError) -> OpaquePointer {
        let connection = try held.withLock { (held) throws(GLibError) -> UInt in
            if let current = held.owned ?? held.shared {
                if g_dbus_connection_is_closed(pointer(current)) == 0 {
                    g_object_ref(UnsafeMutableRawPointer(bitPattern: current))
                    return current
                }
                release(&held)
            }
            // The shared connection: a new one, or the closed one GLib still holds.
            let shared = try sharedConnection()
            if g_dbus_connection_is_closed(shared) == 0 {
                g_object_ref(UnsafeMutableRawPointer(shared))
                held.shared = identity(of: shared)
                return identity(of: shared)
            }
            g_object_unref(UnsafeMutableRawPointer(shared))
            let owned = try ownConnection()
            g_object_ref(UnsafeMutableRawPointer(owned))
            held.owned = identity(of: owned)
            return identity(of: owned)
        }
        return pointer(connection)
    }

    /// A libsecret `SecretService` on `connection` (one from `connection()`), with one
    /// reference the caller must `g_object_unref`; made once per connection and kept. Its
    /// items, collections, prompts and encrypted session use that connection.
    static func service(
        on connection: OpaquePointer, cancellable: UnsafeMutablePointer<GCancellable>?
    ) throws(GLibError) -> UnsafeMutablePointer<SecretService> {
        let key = identity(of: connection)
        if let kept = held.withLock({ held -> UInt? in
            guard let service = held.service, service.connection == key else { return nil }
            g_object_ref(UnsafeMutableRawPointer(bitPattern: service.service))
            return service.service
        }) {
            return UnsafeMutablePointer(bitPattern: kept)!
        }
        var error: UnsafeMutablePointer<GError>? = nil
        guard let made = vault_secret_service_open_on(connection, cancellable, &error) else {
            throw GLibError.take(&error) ?? GLibError(domain: 0, code: 0, message: "no Secret Service proxy")
        }
        let address = UInt(bitPattern: made)
        let chosen = held.withLock { held -> UInt in
            // Another thread may have made one meanwhile: keep the first.
            if let service = held.service, service.connection == key { return service.service }
            // A service for a connection vault no longer uses is dropped (only while `key` is vault's).
            guard key == held.owned ?? held.shared else { return address }
            if let old = held.service { g_object_unref(UnsafeMutableRawPointer(bitPattern: old.service)) }
            g_object_ref(UnsafeMutableRawPointer(made))
            held.service = (key, address)
            return address
        }
        if chosen != address {
            g_object_unref(UnsafeMutableRawPointer(made))
            g_object_ref(UnsafeMutableRawPointer(bitPattern: chosen))
        }
        return UnsafeMutablePointer(bitPattern: chosen)!
    }

    /// Drops the libsecret service kept for the connection in use, and with it its
    /// encrypted transfer session: for a service that restarted on the same bus, which no
    /// longer knows that session (every write in it fails). The next `service(on:)` makes a
    /// new service, which opens a new session.
    static func forgetService() {
        held.withLock { held in
            if let service = held.service { g_object_unref(UnsafeMutableRawPointer(bitPattern: service.service)) }
            held.service = nil
        }
    }

    /// A connection's identity (its address), for remembering what belongs to it.
    static func identity(of connection: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    }

    private static func pointer(_ identity: UInt) -> OpaquePointer { OpaquePointer(bitPattern: identity)! }

    /// Drops vault's references to the closed connection and to everything made on it, and
    /// libsecret's cached service (which holds GLib's shared connection).
    private static func release(_ held: inout Held) {
        if let service = held.service { g_object_unref(UnsafeMutableRawPointer(bitPattern: service.service)) }
        for connection in [held.shared, held.owned].compactMap({ $0 }) { g_object_unref(UnsafeMutableRawPointer(bitPattern: connection)) }
        held = Held()
        secret_service_disconnect()
    }

    /// GLib's shared session bus connection (one reference), told not to end the process.
    private static func sharedConnection() throws(GLibError) -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>? = nil
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            throw GLibError.take(&error) ?? GLibError(domain: 0, code: 0, message: "no session bus connection")
        }
        g_dbus_connection_set_exit_on_close(connection, 0)
        return connection
    }

    /// A new connection of vault's own to the process's session bus address (one reference).
    private static func ownConnection() throws(GLibError) -> OpaquePointer {
        guard let address = SecretServiceProbe.currentProcessBusAddress(), !address.contains("autolaunch:") else {
            throw GLibError(domain: 0, code: 0, message: "the session bus connection is closed, and no bus address to connect to again")
        }
        let flags = GDBusConnectionFlags(
            G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        var error: UnsafeMutablePointer<GError>? = nil
        guard let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else {
            throw GLibError.take(&error) ?? GLibError(domain: 0, code: 0, message: "could not connect to the session bus again")
        }
        g_dbus_connection_set_exit_on_close(connection, 0)
        return connection
    }
}
