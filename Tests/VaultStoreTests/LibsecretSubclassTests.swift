// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CLibSecret
import Testing
import VaultTestSupport

@testable import VaultStore

/// What Sources/CLibSecret/shim.h relies on when it subclasses libsecret's SecretService
/// (issue 39 §7): the subclass is sized by `g_type_query` of SecretService, chains to its
/// constructor, and clears `g-bus-type` afterwards, so the proxy keeps the connection vault
/// gives it instead of GLib's shared session bus. A libsecret that changes any of it (a
/// constructor that no longer runs through GObject's, a proxy that binds the shared bus
/// anyway) fails here, before a user meets a closed shared connection.
@Suite(.needsKeyring, .offThePool) struct LibsecretSubclassTests {
    @Test("the service proxy is a VaultBusService on vault's own connection, with no bus type")
    func serviceKeepsVaultsConnection() throws {
        let connection = try SessionBus.connection()
        let service = try SessionBus.service(on: connection, cancellable: nil)
        defer { g_object_unref(UnsafeMutableRawPointer(service)) }

        let subclass = g_type_from_name("VaultBusService")
        #expect(subclass != 0)
        #expect(g_type_parent(subclass) == secret_service_get_type(), "a direct subclass of SecretService")
        var parent = GTypeQuery()
        var own = GTypeQuery()
        g_type_query(secret_service_get_type(), &parent)
        g_type_query(subclass, &own)
        #expect(own.class_size == parent.class_size && own.instance_size == parent.instance_size, "sized as SecretService")
        let instance = UnsafeMutableRawPointer(service).assumingMemoryBound(to: GTypeInstance.self)
        #expect(g_type_check_instance_is_a(instance, subclass) != 0, "the service is the subclass")

        let proxy = UnsafeMutableRawPointer(service).assumingMemoryBound(to: GDBusProxy.self)
        #expect(g_dbus_proxy_get_connection(proxy) == connection, "the proxy uses the connection vault gave it")
        var value = GValue()
        g_value_init(&value, g_bus_type_get_type())
        g_object_get_property(UnsafeMutableRawPointer(service).assumingMemoryBound(to: GObject.self), "g-bus-type", &value)
        #expect(g_value_get_enum(&value) == G_BUS_TYPE_NONE.rawValue, "g-bus-type cleared after libsecret's constructor")
        g_value_unset(&value)
        g_object_unref(UnsafeMutableRawPointer(connection))
    }
}
