// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CLibSecret
import VaultSync

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What the Secret Service says of one item: its `org.freedesktop.Secret.Item` properties.
struct ItemProperties: Sendable {
    var attributes: [String: String]
    var label: String
    /// Seconds since the epoch.
    var modified: UInt64
    /// Seconds since the epoch.
    var created: UInt64
    /// True when the service does not let this client use the item yet (inside an
    /// unlocked collection: an access it has not approved, KeePassXC's confirmation).
    var locked: Bool
}

/// vault's own D-Bus calls on items, one round trip each and no libsecret proxy per item:
/// a search (`Service.SearchItems`), an item's properties (one `GetAll`), a collection's
/// item list (its `Items`), and an item's secret.
///
/// The secret travels in a session chosen by ``SecretTransfer``: a `plain` session
/// (opened once per connection and reused) with GNOME Keyring, an encrypted one
/// (`dh-ietf1024-sha256-aes128-cbc-pkcs7`, through libsecret) with every other service.
enum ItemCalls {
    private static let itemInterface = "org.freedesktop.Secret.Item"
    private static let propertiesInterface = "org.freedesktop.DBus.Properties"

    /// The object paths of the items whose attributes include `attributes`, unlocked and
    /// locked alike, in the order the service gave them.
    static func search(
        _ attributes: [String: String], connection: OpaquePointer, timeoutMilliseconds: Int32
    ) throws(GLibError) -> [String] {
        let reply = try SecretServiceDBus.call(
            connection, path: SecretServiceDBus.servicePath, interface: SecretServiceDBus.serviceInterface,
            method: "SearchItems", arguments: [stringDictionary(attributes)], timeoutMilliseconds: timeoutMilliseconds)
        defer { g_variant_unref(reply) }
        return objectPaths(reply, child: 0) + objectPaths(reply, child: 1)
    }

    /// The object paths in the `Items` property of the collection at `path`.
    static func items(ofCollection path: String, connection: OpaquePointer, timeoutMilliseconds: Int32) throws(GLibError) -> [String] {
        let value = try SecretServiceDBus.property(
            connection, path: path, interface: SecretServiceDBus.collectionInterface, name: "Items",
            timeoutMilliseconds: timeoutMilliseconds)
        defer { g_variant_unref(value) }
        return strings(in: value)
    }

    /// The properties of the item at `path`; nil when the item is gone (another client
    /// deleted it since it was found).
    static func properties(of path: String, connection: OpaquePointer, timeoutMilliseconds: Int32) throws(GLibError) -> ItemProperties? {
        let reply: OpaquePointer
        do {
            reply = try SecretServiceDBus.call(
                connection, path: path, interface: propertiesInterface, method: "GetAll",
                arguments: [g_variant_new_string(itemInterface)], timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            if error.isVanishedItem { return nil }
            throw error
        }
        defer { g_variant_unref(reply) }
        let dictionary = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(dictionary) }
        var properties = ItemProperties(attributes: [:], label: "", modified: 0, created: 0, locked: false)
        for index in 0..<g_variant_n_children(dictionary) {
            let entry = g_variant_get_child_value(dictionary, index)!
            defer { g_variant_unref(entry) }
            let name = string(entry, child: 0)
            let boxed = g_variant_get_child_value(entry, 1)!
            defer { g_variant_unref(boxed) }
            let value = g_variant_get_variant(boxed)!
            defer { g_variant_unref(value) }
            switch (name, typeString(value)) {
            case ("Attributes", "a{ss}"): properties.attributes = dictionaryOfStrings(value)
            case ("Label", "s"): properties.label = String(cString: g_variant_get_string(value, nil))
            case ("Modified", "t"): properties.modified = UInt64(g_variant_get_uint64(value))
            case ("Created", "t"): properties.created = UInt64(g_variant_get_uint64(value))
            case ("Locked", "b"): properties.locked = g_variant_get_boolean(value) != 0
            default: continue
            }
        }
        return properties
    }

    /// The secret of the item at `path`, in the session ``SecretTransfer`` picks for the
    /// service that answers.
    static func secret(of path: String, connection: OpaquePointer, timeoutMilliseconds: Int32) throws(GLibError) -> [UInt8] {
        switch SecretTransfer.current(connection: connection, timeoutMilliseconds: timeoutMilliseconds) {
        case .plain: return try PlainSession.secret(of: path, connection: connection, timeoutMilliseconds: timeoutMilliseconds)
        case .encrypted:
            // At most three round trips (the service's properties, the session, the secret).
            let bound = BoundedCall.bound(calls: 3, of: timeoutMilliseconds)
            return try BoundedCall.run(milliseconds: bound, timedOut: { BoundedCall.timeout(bound) }) {
                (cancellable) throws(GLibError) in try encryptedSecret(of: path, connection: connection, cancellable: cancellable)
            }
        }
    }

    /// Reads the secret through libsecret's service on `connection`, which opens (once per
    /// connection) and uses an encrypted session.
    private static func encryptedSecret(
        of path: String, connection: OpaquePointer, cancellable: UnsafeMutablePointer<GCancellable>
    ) throws(GLibError) -> [UInt8] {
        let service = try SessionBus.service(on: connection, cancellable: cancellable)
        defer { g_object_unref(UnsafeMutableRawPointer(service)) }
        var error: UnsafeMutablePointer<GError>? = nil
        guard secret_service_ensure_session_sync(service, cancellable, &error) != 0 else {
            throw GLibError.take(&error) ?? GLibError(domain: 0, code: 0, message: "no encrypted session")
        }
        // `GetSecrets` leaves out an item it does not find: KeePassXC answers so for an item
        // another client deleted after vault's search (GNOME Keyring fails the call), and
        // libsecret then returns no value and no error. That is a vanished item.
        guard let value = secret_service_get_secret_for_dbus_path_sync(service, path, cancellable, &error) else {
            throw GLibError.take(&error)
                ?? GLibError(
                    domain: secret_error_get_quark(), code: Int32(SECRET_ERROR_NO_SUCH_OBJECT.rawValue),
                    message: "the Secret Service returned no secret for the item (it was deleted meanwhile)")
        }
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        var length: gsize = 0
        guard let pointer = secret_value_get(value, &length), length > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: Int(length)))
    }

    // MARK: GVariant helpers

    /// A floating `a{ss}` of `entries`.
    static func stringDictionary(_ entries: [String: String]) -> OpaquePointer {
        let type = g_variant_type_new("a{ss}")
        defer { g_variant_type_free(type) }
        let builder = g_variant_builder_new(type)
        defer { g_variant_builder_unref(builder) }
        for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
            g_variant_builder_add_value(builder, g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_string(value)))
        }
        return g_variant_builder_end(builder)
    }

    /// The `a{ss}` `value` as a dictionary.
    static func dictionaryOfStrings(_ value: OpaquePointer) -> [String: String] {
        var result: [String: String] = [:]
        for index in 0..<g_variant_n_children(value) {
            let entry = g_variant_get_child_value(value, index)!
            defer { g_variant_unref(entry) }
            result[string(entry, child: 0)] = string(entry, child: 1)
        }
        return result
    }

    /// The strings (or object paths) of the array `value`.
    static func strings(in value: OpaquePointer) -> [String] {
        (0..<g_variant_n_children(value)).map { index in string(value, child: Int(index)) }
    }

    /// The object paths of the `ao` at `child` of `reply`.
    private static func objectPaths(_ reply: OpaquePointer, child index: Int) -> [String] {
        let array = g_variant_get_child_value(reply, gsize(index))!
        defer { g_variant_unref(array) }
        return strings(in: array)
    }

    private static func string(_ value: OpaquePointer, child index: Int) -> String {
        SecretServiceDBus.string(value, child: index)
    }

    private static func typeString(_ value: OpaquePointer) -> String {
        String(cString: g_variant_get_type_string(value))
    }
}

/// How a secret travels from the Secret Service to vault.
///
/// GNOME Keyring lets every client of the session read every item of an unlocked
/// collection (it keeps no per-client access list), so anyone who could watch the bus
/// could as well ask the keyring: vault uses a `plain` session there, as go-keyring
/// (`gh auth`) does everywhere, and saves the two Diffie-Hellman computations an
/// encrypted session costs. A service that may refuse a client (KeePassXC's
/// confirmation) or one vault does not know gets an encrypted session, as `secret-tool`
/// and Python's SecretStorage use, so that watching the bus does not yield what asking
/// would not. Secrets that vault *sends* (`save`) always go through libsecret's
/// encrypted session.
enum SecretTransfer: Equatable {
    case plain, encrypted

    /// The transfer for the program that owns `org.freedesktop.secrets` now (one round
    /// trip to the bus daemon and a read of `/proc/PID/comm`).
    static func current(connection: OpaquePointer, timeoutMilliseconds: Int32) -> SecretTransfer {
        transfer(for: SecretServiceImplementation.current(connection: connection, timeoutMilliseconds: timeoutMilliseconds))
    }

    /// The transfer for `implementation`.
    static func transfer(for implementation: SecretServiceImplementation) -> SecretTransfer {
        implementation == .gnomeKeyring ? .plain : .encrypted
    }
}

/// The `plain` session of this process's connection, opened on first use and kept (the
/// service closes it when the connection goes), so a read costs one round trip.
enum PlainSession {
    /// The open session's object path, and the connection it belongs to.
    private static let open = Locked<(connection: UInt, path: String)?>(nil)

    /// `Item.GetSecret` in the plain session; a session the service no longer knows (it
    /// restarted) is opened again, once.
    static func secret(of path: String, connection: OpaquePointer, timeoutMilliseconds: Int32) throws(GLibError) -> [UInt8] {
        var attempt = 0
        while true {
            attempt += 1
            let session = try session(connection: connection, timeoutMilliseconds: timeoutMilliseconds, fresh: attempt > 1)
            do throws(GLibError) {
                let reply = try SecretServiceDBus.call(
                    connection, path: path, interface: "org.freedesktop.Secret.Item", method: "GetSecret",
                    arguments: [g_variant_new_object_path(session)], timeoutMilliseconds: timeoutMilliseconds)
                defer { g_variant_unref(reply) }
                return bytes(ofSecretIn: reply)
            } catch {
                guard attempt == 1, error.message.contains("NoSession") else { throw error }
            }
        }
    }

    private static func session(connection: OpaquePointer, timeoutMilliseconds: Int32, fresh: Bool) throws(GLibError) -> String {
        let key = SessionBus.identity(of: connection)
        if !fresh, let open = open.withLock({ $0 }), open.connection == key { return open.path }
        let reply = try SecretServiceDBus.call(
            connection, path: SecretServiceDBus.servicePath, interface: SecretServiceDBus.serviceInterface,
            method: "OpenSession", arguments: [g_variant_new_string("plain"), g_variant_new_variant(g_variant_new_string(""))],
            timeoutMilliseconds: timeoutMilliseconds)
        defer { g_variant_unref(reply) }
        let path = SecretServiceDBus.string(reply, child: 1)
        open.withLock { $0 = (key, path) }
        return path
    }

    /// The value bytes of the `(oayays)` secret in `reply`; the reply's copy is wiped.
    private static func bytes(ofSecretIn reply: OpaquePointer) -> [UInt8] {
        let secret = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(secret) }
        let value = g_variant_get_child_value(secret, 2)!
        defer { g_variant_unref(value) }
        var count: gsize = 0
        guard let pointer = g_variant_get_fixed_array(value, &count, 1), count > 0 else { return [] }
        let bytes = Array(UnsafeRawBufferPointer(start: pointer, count: Int(count)))
        memset(UnsafeMutableRawPointer(mutating: pointer), 0, Int(count))
        return bytes
    }
}
