// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CLibSecret
import Synchronization

/// The process's session bus connection: GLib's shared one, which libsecret uses too.
///
/// vault keeps one reference to it for the life of the process, so the probe, every
/// store operation and libsecret share one connection (one `Hello`, one plain session)
/// instead of opening and closing one each. The connection is told not to end the
/// process when the bus goes away (GLib's default for the shared connection): a library
/// must not kill its host; the next call fails instead.
enum SessionBus {
    /// The address of the connection vault holds a reference to.
    private static let kept = Mutex<UInt?>(nil)

    /// The shared connection, with one reference the caller must `g_object_unref`.
    static func connection() throws(GLibError) -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>? = nil
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            throw GLibError.take(&error) ?? GLibError(domain: 0, code: 0, message: "no session bus connection")
        }
        let address = identity(of: connection)
        kept.withLock { kept in
            guard kept != address else { return }
            // A new shared connection (the previous one was closed): keep this one instead.
            g_dbus_connection_set_exit_on_close(connection, 0)
            g_object_ref(UnsafeMutableRawPointer(connection))
            kept = address
        }
        return connection
    }

    /// A connection's identity (its address), for remembering what belongs to it.
    static func identity(of connection: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    }
}
