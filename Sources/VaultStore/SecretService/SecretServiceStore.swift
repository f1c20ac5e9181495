import CLibSecret

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `SecureStore` in the Secret Service (GNOME Keyring, KeePassXC) through libsecret.
///
/// Items are password items in the **default collection** with the attributes of
/// `LibSecretSchema` (`user` = account, `server` = server as given, plus `protocol`/`port`
/// when the server is a URL), so `secret-tool` and vault see the same items:
/// - `save` replaces the secret and label of the newest item that matches `user`+`server`
///   (removing duplicates), or creates one (label default `vault: ACCOUNT@SERVER`);
/// - `load` returns the newest matching item, `remove` deletes every matching item;
/// - `list` returns every item of the default collection that has both a `user` and a
///   `server` attribute (also those `secret-tool` stored), one per key, without loading
///   any secret, plus vault's items of other kinds.
///
/// Keys of the other kinds (`ItemKind.tokens`, `.settings`) are stored with the
/// `vault-kind`/`vault-server`/`vault-account` attributes instead, so that a password
/// lookup (by vault or `secret-tool`) never matches them.
///
/// Before every operation the store reads the `default` alias and the collection's
/// `Locked` property itself (libsecret answers NULL for both "locked" and "not found"):
/// a locked collection throws `VaultError.locked` at once and no prompt is ever started;
/// a missing default collection throws `VaultError.backendUnavailable` and none is created.
///
/// Creating the store checks (within `timeout`) that `DBUS_SESSION_BUS_ADDRESS` is set and
/// that the Secret Service answers, so a forced `secret-service` backend without a bus
/// fails fast with `backendUnavailable` instead of autolaunching D-Bus or hanging.
/// Instances are thread-safe: they hold no mutable state, and libsecret's `_sync` calls
/// need no main loop.
public final class SecretServiceStore: SecureStore {
    public let backendName = "secret-service"

    /// The bound on each of vault's own D-Bus calls (alias and lock state).
    private let callTimeoutMilliseconds: Int32

    /// Connects to the Secret Service on the process's session bus.
    ///
    /// - Parameter timeout: how long the service may take to answer the first call, and
    ///   each later lock-state check.
    /// - Parameter alreadyProbed: skip the check because `BackendSelection` just made it
    ///   (`BackendDecision.serviceAnswered`); one D-Bus round trip less on every command.
    /// - Throws: `VaultError.backendUnavailable` when there is no session bus address, the
    ///   bus does not answer, or nobody owns `org.freedesktop.secrets`.
    public init(timeout: Duration = .seconds(3), alreadyProbed: Bool = false) throws(VaultError) {
        callTimeoutMilliseconds = SecretServiceProbe.milliseconds(timeout)
        if alreadyProbed { return }
        var environment: [String: String] = [:]
        if let address = SecretServiceProbe.currentProcessBusAddress() {
            environment[SecretServiceProbe.busAddressVariable] = address
        }
        let outcome = SecretServiceProbe.probe(environment: environment, timeout: timeout)
        guard outcome.available else {
            throw .backendUnavailable("Secret Service: \(outcome.reason) (use --backend file)")
        }
    }

    // MARK: SecureStore

    public func save(_ credential: Credential) throws(VaultError) {
        let key = try credential.key.validated()
        let collection = try unlockedDefaultCollection()
        try withItems(matching: key, in: collection) { (items) throws(VaultError) in
            let value = Self.newValue(credential.secret)
            defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
            guard let newest = items.max(by: { $0.modified < $1.modified }) else {
                try Self.store(credential, key: key, value: value, collection: collection)
                return
            }
            try Self.check("store the secret") { error in secret_item_set_secret_sync(newest.item, value, nil, &error) }
            if newest.label != credential.label {
                try Self.check("set the label") { error in
                    secret_item_set_label_sync(newest.item, credential.label, nil, &error)
                }
            }
            for duplicate in items where duplicate.item != newest.item {
                try Self.check("remove a duplicate item") { error in secret_item_delete_sync(duplicate.item, nil, &error) }
            }
        }
    }

    public func load(_ key: CredentialKey) throws(VaultError) -> Credential? {
        let key = try key.validated()
        let collection = try unlockedDefaultCollection()
        return try withItems(matching: key, in: collection) {
            (items) throws(VaultError) -> Credential? in
            guard let newest = items.max(by: { $0.modified < $1.modified }) else { return nil }
            var error: UnsafeMutablePointer<GError>? = nil
            guard let value = secret_retrievable_retrieve_secret_sync(newest.retrievable, nil, &error) else {
                throw Self.failure(GLibError.take(&error), doing: "read the secret")
            }
            defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
            var length: gsize = 0
            let bytes: [UInt8]
            if let pointer = secret_value_get(value, &length) {
                bytes = Array(UnsafeRawBufferPointer(start: pointer, count: Int(length)))
            } else {
                bytes = []
            }
            return Credential(key: key, secret: Secret(bytes: bytes), label: newest.label)
        }
    }

    public func remove(_ key: CredentialKey) throws(VaultError) {
        let key = try key.validated()
        let collection = try unlockedDefaultCollection()
        try withItems(matching: key, in: collection) { (items) throws(VaultError) in
            for item in items {
                try Self.check("remove the item") { error in secret_item_delete_sync(item.item, nil, &error) }
            }
        }
    }

    public func list(server: String?) throws(VaultError) -> [CredentialInfo] {
        let collection = try unlockedDefaultCollection()
        return try withItems(matching: nil, in: collection) { (items) throws(VaultError) -> [CredentialInfo] in
            var newest: [CredentialKey: FoundItem] = [:]
            for item in items {
                guard let key = item.key, server == nil || key.server == server else { continue }
                if let seen = newest[key], seen.modified >= item.modified { continue }
                newest[key] = item
            }
            return newest.map { CredentialInfo(key: $0.key, label: $0.value.label) }.sorted()
        }
    }

    // MARK: Lock state

    /// The object path of the default collection, after checking that it exists and is
    /// unlocked. Throws `locked` or `backendUnavailable`; never prompts, never creates.
    func unlockedDefaultCollection() throws(VaultError) -> String {
        var error: UnsafeMutablePointer<GError>? = nil
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            throw Self.failure(GLibError.take(&error), doing: "connect to the session bus")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        let path: String
        do {
            let reply = try SecretServiceDBus.call(
                connection, path: SecretServiceDBus.servicePath, interface: SecretServiceDBus.serviceInterface,
                method: "ReadAlias", arguments: [g_variant_new_string("default")],
                timeoutMilliseconds: callTimeoutMilliseconds)
            defer { g_variant_unref(reply) }
            let child = g_variant_get_child_value(reply, 0)!
            defer { g_variant_unref(child) }
            path = String(cString: g_variant_get_string(child, nil))
        } catch {
            throw Self.failure(error, doing: "find the default collection")
        }
        guard path != "/" else {
            throw .backendUnavailable(
                "the Secret Service has no default collection, and vault does not create one "
                    + "(create a keyring, e.g. with `gnome-keyring-daemon --unlock`, or use --backend file)")
        }
        let locked: Bool
        do {
            let value = try SecretServiceDBus.property(
                connection, path: path, interface: SecretServiceDBus.collectionInterface, name: "Locked",
                timeoutMilliseconds: callTimeoutMilliseconds)
            defer { g_variant_unref(value) }
            locked = g_variant_get_boolean(value) != 0
        } catch {
            throw Self.failure(error, doing: "read the lock state of \(path)")
        }
        if locked {
            throw .locked(
                "the default collection \(path) is locked and vault never waits on an unlock prompt; "
                    + "unlock it (e.g. log in to the desktop, or `gnome-keyring-daemon --unlock`)")
        }
        return path
    }

    // MARK: Items

    /// An item that a search found, borrowed from the search result list.
    private struct FoundItem {
        var retrievable: OpaquePointer
        var item: UnsafeMutablePointer<SecretItem>
        var attributes: [String: String]
        var label: String
        var modified: UInt64

        /// The vault key of this item (nil when it is not one of vault's kinds of item).
        var key: CredentialKey? { LibSecretSchema.key(from: attributes) }
    }

    /// Searches the default Secret Service for the items of `key` (nil: every item), never
    /// matching the schema name, never unlocking, never loading secrets; keeps those in
    /// `collection` whose attributes give exactly that key (or any vault key), and runs
    /// `body` with them. The items live until `body` returns.
    private func withItems<R>(
        matching key: CredentialKey?, in collection: String,
        _ body: ([FoundItem]) throws(VaultError) -> R
    ) throws(VaultError) -> R {
        let attributes = key.map(LibSecretSchema.matchAttributes(for:)) ?? [:]
        let list = try GLibMemory.withStringTable(attributes) { (table) throws(VaultError) -> UnsafeMutablePointer<GList>? in
            // An item that another client deletes between SearchItems and libsecret's
            // loading of its properties fails the whole search: search again (bounded).
            var attempt = 0
            while true {
                attempt += 1
                do throws(GLibError) {
                    return try Self.search(key: key, table: table)
                } catch {
                    if error.isVanishedItem && attempt < 20 {
                        usleep(UInt32(5_000 * min(attempt, 10)))
                        continue
                    }
                    throw Self.failure(error, doing: "search the keyring")
                }
            }
        }
        defer { if let list { g_list_free_full(list, g_object_unref) } }
        return try body(Self.items(in: list, collection: collection, key: key))
    }

    /// One search; the caller frees the list.
    private static func search(key: CredentialKey?, table: OpaquePointer) throws(GLibError) -> UnsafeMutablePointer<GList>? {
        var error: UnsafeMutablePointer<GError>? = nil
        // With attributes: the password schema (validated, name not matched), like
        // secret_password_searchv_sync. Without (list all): no schema, since libsecret
        // refuses a schema search that matches nothing; every item of the collection.
        let schema = key.map { LibSecretSchema.schema(for: $0.kind).pointer }
        let list = secret_service_search_sync(nil, schema, table, SECRET_SEARCH_ALL, nil, &error)
        if let failure = GLibError.take(&error) {
            if let list { g_list_free_full(list, g_object_unref) }
            throw failure
        }
        return list
    }

    /// The vault items of a search result that live in `collection` (and have `key`).
    private static func items(
        in list: UnsafeMutablePointer<GList>?, collection: String, key: CredentialKey?
    ) -> [FoundItem] {
        let prefix = collection + "/"
        var items: [FoundItem] = []
        for element in GLibMemory.elements(of: list) {
            let instance = element.assumingMemoryBound(to: GTypeInstance.self)
            // The D-Bus backend returns SecretItem proxies; anything else is not ours to touch.
            guard g_type_check_instance_is_a(instance, secret_item_get_type()) != 0 else { continue }
            let item = element.assumingMemoryBound(to: SecretItem.self)
            let proxy = element.assumingMemoryBound(to: GDBusProxy.self)
            guard let path = g_dbus_proxy_get_object_path(proxy), String(cString: path).hasPrefix(prefix) else {
                continue
            }
            let retrievable = OpaquePointer(element)
            guard let table = secret_retrievable_get_attributes(retrievable) else { continue }
            let itemAttributes = GLibMemory.stringDictionary(table)
            g_hash_table_unref(table)
            let candidate = FoundItem(
                retrievable: retrievable, item: item, attributes: itemAttributes,
                label: GLibMemory.takeString(secret_retrievable_get_label(retrievable)) ?? "",
                modified: UInt64(secret_retrievable_get_modified(retrievable)))
            guard let found = candidate.key, key == nil || found == key else { continue }
            items.append(candidate)
        }
        return items
    }

    /// Creates a new item in `collection` (an object path, so nothing is ever created).
    private static func store(
        _ credential: Credential, key: CredentialKey, value: OpaquePointer, collection: String
    ) throws(VaultError) {
        try GLibMemory.withStringTable(LibSecretSchema.storeAttributes(for: key)) { (table) throws(VaultError) in
            try check("store the item") { error in
                secret_password_storev_binary_sync(
                    LibSecretSchema.schema(for: key.kind).pointer, table, collection, credential.label, value, nil, &error)
            }
        }
    }

    /// A new SecretValue holding a copy of `secret` ("text/plain" when it is UTF-8, so
    /// `secret-tool lookup` prints it). The caller unrefs it; libsecret wipes its copy.
    private static func newValue(_ secret: Secret) -> OpaquePointer {
        let contentType = secret.utf8String == nil ? "application/octet-stream" : "text/plain"
        if secret.bytes.isEmpty { return secret_value_new("", 0, contentType) }
        return secret.bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: gchar.self) { secret_value_new($0.baseAddress, gssize($0.count), contentType) }
        }
    }

    /// Runs a libsecret call that reports success as a gboolean, mapping failure.
    private static func check(
        _ action: String, _ call: (inout UnsafeMutablePointer<GError>?) -> gboolean
    ) throws(VaultError) {
        var error: UnsafeMutablePointer<GError>? = nil
        let succeeded = call(&error) != 0
        let failure = GLibError.take(&error)
        if succeeded && failure == nil { return }
        throw Self.failure(failure, doing: action)
    }

    /// The `VaultError` for a failed call. A FALSE/NULL without a GError is what
    /// libsecret returns for an attribute the schema does not declare.
    private static func failure(_ error: GLibError?, doing action: String) -> VaultError {
        guard let error else {
            return .backendUnavailable("Secret Service: could not \(action) (libsecret gave no reason)")
        }
        if error.isLocked {
            return .locked("could not \(action): \(error.message); unlock the keyring (e.g. `gnome-keyring-daemon --unlock`)")
        }
        if error.isNoOwner {
            return .backendUnavailable("no Secret Service on the session bus (could not \(action))")
        }
        if error.isTimeout {
            return .backendUnavailable("the Secret Service does not answer (could not \(action): \(error.message))")
        }
        return .backendUnavailable("Secret Service: could not \(action): \(error.message)")
    }
}
