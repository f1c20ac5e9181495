// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

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
/// Passwords are items of the default collection with the network-password attributes
/// git's libsecret helper writes, so `secret-tool`, git and vault see the same items. The
/// keyring is shared: vault reads, changes and deletes only items whose attribute set is
/// exactly one it uses for the key (``ItemShape``), never a neighbour with the same `user`
/// and `server`, and never uses the service's "replace" (GNOME Keyring would replace the
/// neighbours). Tokens and settings carry `vault-kind`/`vault-server`/`vault-account`, so no
/// password lookup matches them. A locked or missing default collection throws `.locked` or
/// `.backendUnavailable` at once: no prompt is started, nothing is created. Creating the
/// store checks, within `timeout`, that a Secret Service answers on the session bus.
/// Thread-safe: no mutable state, and libsecret's `_sync` calls need no main loop.
/// The rules in full (which item `load` picks, how `save` relabels, what crosses the bus):
/// docs/secret-service.md, "How vault's items look in the keyring".
public final class SecretServiceStore: SecureStore {
    /// `"secret-service"`; see ``SecureStore/backendName``.
    public let backendName = "secret-service"

    /// The bound on each of vault's own D-Bus calls (alias and lock state).
    private let callTimeoutMilliseconds: Int32

    /// The default bound on each call: well under D-Bus's 25 s, yet above what a GNOME Keyring
    /// serving many clients on a machine at a load of 6 to 7 took for one property read (over 3 s).
    public static let defaultCallTimeout: Duration = .seconds(10)

    /// What to do when the service answers with a prompt (unlock, confirm, approve).
    private let prompts: PromptPolicy
    /// Where vault's writers of one item take turns (``ItemWriteLock``); nil: no lock.
    private let itemLockDirectory: String?
    /// Told when a write goes ahead without its item lock (another vault writer held it).
    private let notice: (@Sendable (String) -> Void)?

    /// Connects to the Secret Service on the process's session bus.
    ///
    /// - Parameter timeout: how long the service may take to answer the first call, and
    ///   each later lock-state check.
    /// - Parameter alreadyProbed: skip the check because `BackendSelection` just made it
    ///   (`BackendDecision.viability`); one D-Bus round trip less on every command.
    /// - Parameter prompts: whether a prompt of the service (an unlock dialog, a deletion
    ///   or access confirmation) is shown and waited for, boundedly, or never shown.
    /// - Throws: `VaultError.backendUnavailable` when there is no session bus address, the
    ///   bus does not answer, or nobody owns `org.freedesktop.secrets`.
    /// - Parameter itemLockDirectory: where vault's own writers of one item take turns
    ///   (``ItemWriteLock``): the user's lock directory by default; nil for none.
    /// - Parameter notice: told when a write goes ahead without its item lock (refused, or
    ///   held by another process for the whole wait): a person should hear of it.
    public init(
        timeout: Duration = defaultCallTimeout, alreadyProbed: Bool = false, prompts: PromptPolicy = .never,
        itemLockDirectory: String? = RefreshLock.perUserDirectory(), notice: (@Sendable (String) -> Void)? = nil
    ) throws(VaultError) {
        callTimeoutMilliseconds = SecretServiceProbe.milliseconds(timeout)
        self.prompts = prompts
        self.itemLockDirectory = itemLockDirectory
        self.notice = notice
        if alreadyProbed { return }
        var environment: [String: String] = [:]
        if let address = SecretServiceProbe.currentProcessBusAddress() {
            environment[SecretServiceProbe.busAddressVariable] = address
        }
        // Forced: an owner the bus names is there after the usual bound (its calls then wait
        // their own), and a silent bus fails after one call's bound, not five.
        let outcome = SecretServiceProbe.probe(
            environment: environment, timeout: min(timeout, SecretServiceProbe.defaultTimeout), longest: timeout)
        guard outcome.available else {
            // A silent bus may well carry the user's keyring: "use the file" would be the wrong advice.
            throw VaultError.backendUnavailable("Secret Service: \(outcome.reason)")
                .with(outcome.verdict == .undecided ? .retryOrUseAnotherBackend : .useAnotherBackend)
        }
    }

    // MARK: SecureStore

    /// Saves `credential`: updates the key's best item or creates one, then removes the
    /// key's other items (duplicates, the older shape). The save has happened once the
    /// secret is stored: an older item whose deletion the keyring does not confirm (a
    /// KeePassXC setting) is left in place, and `load` still returns the new secret. An
    /// item another client deletes meanwhile makes the save start over (bounded). vault's
    /// own writers of one item take turns (``ItemWriteLock``), so concurrent saves leave
    /// one item.
    public func save(_ credential: Credential) throws(VaultError) {
        let key = try credential.key.validated()
        try ItemWriteLock.holding(key, in: itemLockDirectory, .saving, notice: notice) { () throws(VaultError) in
            try saveLocked(credential, key: key)
        }
    }

    private func saveLocked(_ credential: Credential, key: CredentialKey) throws(VaultError) {
        try withCollection { (collection) throws(VaultError) in
            var attempt = 0
            while true {
                attempt += 1
                do throws(VaultError) {
                    try saveOnce(credential, key: key, in: collection)
                    return
                } catch {
                    guard attempt < 5, Self.isVanishedItemError(error) else { throw error }
                }
            }
        }
    }

    private func saveOnce(_ credential: Credential, key: CredentialKey, in collection: OpenCollection) throws(VaultError) {
        let items = try approvedItems(matching: key, in: collection)
        let value = Self.newValue(credential.secret)
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        let best = items.filter { $0.shape != .legacy }.preferred
        // A save without a label of its own (the default one) keeps the item's label: git's
        // `Git: URL`, or one given before. The keyring's items are the user's.
        let label = credential.label == Credential.defaultLabel(for: key) ? best?.label ?? credential.label : credential.label
        let relabels = best.map { $0.label != label } ?? false
        // Setting an item's Label while another client creates and deletes items crashes
        // GNOME Keyring 42 (SIGSEGV; docs/secret-service.md). So a new label is a new item,
        // and the old one goes with the duplicates below, except on KeePassXC, which keeps
        // the entry (and its history). Not "unless GNOME Keyring": a service vault cannot
        // name (another PID namespace, a failed lookup) may be GNOME Keyring.
        let target = relabels && collection.implementation != .keePassXC ? nil : best
        // libsecret's calls (the item's proxy, the encrypted session, the write) within
        // vault's bound, not D-Bus's default 25 s.
        let bound = BoundedCall.bound(calls: 5, of: callTimeoutMilliseconds)
        let timedOut = {
            VaultError.backendUnavailable("the Secret Service does not answer (could not store the secret within \(bound) ms)")
                .with(.retryOrUseAnotherBackend)
        }
        try BoundedCall.run(milliseconds: bound, timedOut: timedOut) { (cancellable) throws(VaultError) in
            if let target {
                try collection.withItemProxy(target.path, cancellable: cancellable) { (item) throws(VaultError) in
                    try collection.check("store the secret") { error in secret_item_set_secret_sync(item, value, cancellable, &error) }
                    if relabels {
                        try collection.check("set the label") { error in
                            secret_item_set_label_sync(item, label, cancellable, &error)
                        }
                    }
                }
            } else {
                try Self.create(credential, key: key, value: value, in: collection, cancellable: cancellable)
            }
        }
        for other in items where other.path != target?.path {
            do throws(VaultError) {
                try collection.delete(other, doing: "remove an older item of the same key (the new secret is saved)")
            } catch {
                // Housekeeping only: the new secret is stored and `load` prefers it. But an
                // older secret stays in the keyring (one being rotated away, maybe): say so.
                guard case .notApproved = error else { throw error }
                notice?(
                    "the new secret is saved, but an older item of the same key stays in the keyring (\(error.description)); "
                        + "the next save removes it")
            }
        }
    }

    /// True for the failure of a call on an item that another client deleted meanwhile.
    private static func isVanishedItemError(_ error: VaultError) -> Bool {
        guard case .backendUnavailable(let why) = error else { return false }
        return GLibError.saysItemVanished(why)
    }

    /// Validates the key, then reads the secret of the key's best, newest item; nil when the key has none.
    /// An item the keyring has not approved vault to read is approved through its prompt when the
    /// ``PromptPolicy`` allows, else ``VaultError/notApproved(_:)``. See ``SecureStore/load(_:)``.
    public func load(_ key: CredentialKey) throws(VaultError) -> Credential? {
        let key = try key.validated()
        return try withCollection { (collection) throws(VaultError) -> Credential? in
            // An item another client deletes between the search and the read is searched
            // for again (bounded): the key's other item, or none (not found).
            var attempt = 0
            while true {
                attempt += 1
                guard let best = try approvedItems(matching: key, in: collection).preferred else { return nil }
                do throws(GLibError) {
                    let bytes = try ItemCalls.secret(
                        of: best.path, connection: collection.connection, timeoutMilliseconds: callTimeoutMilliseconds)
                    return Credential(key: key, secret: Secret(bytes: bytes), label: best.label)
                } catch {
                    guard error.isVanishedItem, attempt < 5 else { throw collection.failure(error, doing: "read the secret") }
                }
            }
        }
    }

    /// Validates the key, then deletes every item of exactly that key (never a neighbour's). A deletion the
    /// keyring wants confirmed follows the ``PromptPolicy``; unconfirmed, it throws
    /// ``VaultError/notApproved(_:)`` and the item stays. See ``SecureStore/remove(_:)``.
    public func remove(_ key: CredentialKey) throws(VaultError) {
        let key = try key.validated()
        try ItemWriteLock.holding(key, in: itemLockDirectory, .removing, notice: notice) { () throws(VaultError) in
            try removeLocked(key)
        }
    }

    private func removeLocked(_ key: CredentialKey) throws(VaultError) {
        try withCollection { (collection) throws(VaultError) in
            // Deleting needs no access to the secret; a deletion may need a confirmation.
            for item in try items(matching: key, in: collection) {
                try collection.delete(item, doing: "remove the item")
            }
        }
    }

    /// One entry per key found in the default collection, without loading any secret (so no approval is
    /// asked for). See ``SecureStore/list(server:)``.
    public func list(server: String?) throws(VaultError) -> [CredentialInfo] {
        try withCollection { (collection) throws(VaultError) -> [CredentialInfo] in
            let items = try items(matching: nil, in: collection)
            let byKey = Dictionary(grouping: items.filter { server == nil || $0.key.server == server }, by: \.key)
            return byKey.compactMap { key, items in items.preferred.map { CredentialInfo(key: key, label: $0.label) } }.sorted()
        }
    }

    // MARK: The default collection

    /// Runs `body` with the default collection, after checking that it exists and is
    /// unlocked. A locked collection is unlocked through the service's prompt when the
    /// prompt policy allows it, else throws `locked` at once; a missing default collection
    /// throws `backendUnavailable` (none is ever created).
    ///
    /// An operation that fails because the bus closed the connection runs once more on the
    /// connection `SessionBus` replaces it with; one that fails because the service no
    /// longer knows libsecret's transfer session (it restarted on the same bus) runs once
    /// more with a new service and session. Every operation here is safe to run again:
    /// `load` and `list` only read; `save` of the same credential ends in the same single
    /// item whether or not the first run wrote; `remove` deletes what is left of the key.
    private func withCollection<R>(_ body: (OpenCollection) throws(VaultError) -> R) throws(VaultError) -> R {
        do {
            return try withCollectionOnce(body)
        } catch {
            guard case .backendUnavailable(let why) = error else { throw error }
            if GLibError.saysSessionGone(why) {
                SessionBus.forgetService()
            } else if !GLibError.saysConnectionClosed(why) {
                throw error
            }
            return try withCollectionOnce(body)
        }
    }

    private func withCollectionOnce<R>(_ body: (OpenCollection) throws(VaultError) -> R) throws(VaultError) -> R {
        let connection: OpaquePointer
        do throws(GLibError) {
            connection = try SessionBus.connection()
        } catch {
            throw Self.failure(error, doing: "connect to the session bus")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        let collection = OpenCollection(
            connection: connection, path: try defaultCollectionPath(connection), prompts: prompts,
            callTimeoutMilliseconds: callTimeoutMilliseconds)
        if try collection.isLocked() {
            try collection.unlock()
        }
        return try body(collection)
    }

    /// The object path of the default collection (`ReadAlias("default")`).
    private func defaultCollectionPath(_ connection: OpaquePointer) throws(VaultError) -> String {
        let path: String
        do {
            let reply = try SecretServiceDBus.call(
                connection, path: SecretServiceDBus.servicePath, interface: SecretServiceDBus.serviceInterface,
                method: "ReadAlias", arguments: [g_variant_new_string("default")],
                timeoutMilliseconds: callTimeoutMilliseconds)
            defer { g_variant_unref(reply) }
            path = SecretServiceDBus.string(reply, child: 0)
        } catch {
            throw Self.failure(error, doing: "find the default collection")
        }
        guard path != SecretServicePrompt.noPrompt else {
            let service = SecretServiceImplementation.current(connection: connection, timeoutMilliseconds: callTimeoutMilliseconds)
            throw VaultError.backendUnavailable("\(service.name) has no default collection, and vault does not create one")
                .with(.createCollection(service.noCollectionHint))
        }
        return path
    }

    /// The items of `key`, after making sure vault may use them: an item the service
    /// reports locked inside an unlocked collection is one whose access it has not
    /// approved (KeePassXC's "Confirm when passwords are retrieved by clients"). Its
    /// approval is asked through the service's prompt when the policy allows, and the
    /// items are searched again; else `notApproved` is thrown and nothing is changed.
    private func approvedItems(matching key: CredentialKey, in collection: OpenCollection) throws(VaultError) -> [FoundItem] {
        let items = try items(matching: key, in: collection)
        let locked = items.filter(\.locked)
        guard !locked.isEmpty else { return items }
        try collection.approveAccess(to: locked)
        let again = try self.items(matching: key, in: collection)
        if let still = again.first(where: \.locked) {
            throw collection.accessRefused(to: still, "the item is still locked after the approval")
        }
        return again
    }

    // MARK: Items

    /// An item of a key that a search found.
    struct FoundItem {
        var path: String
        var key: CredentialKey
        var shape: ItemShape
        var label: String
        /// `Modified` and `Created`, seconds since the epoch.
        var modified: UInt64
        var created: UInt64
        /// True when the service has not approved vault's access to it.
        var locked: Bool
    }

    /// How many times a search runs when an item it found is gone before its properties are read.
    private static let searchAttempts = 3

    /// The items of `key` in `collection` (nil: of every key). A key's items are found by
    /// searching the service for its attributes (never matching the schema name, never
    /// unlocking, never loading secrets); every item is found by the collection's `Items`,
    /// since not every service answers a search without attributes (KeePassXC answers
    /// nothing). Only items of exactly that key (or of any key: `ItemShape.classify`) in
    /// `collection` are kept.
    ///
    /// A search whose item is gone when its properties are read (another client deleted it,
    /// or the service answered "no such object" under load) runs again, up to
    /// `searchAttempts` times in all, so the answer is never a partial list: a `save` that
    /// missed the key's item would create a second one. Only an item still gone after the
    /// last search is left out.
    private func items(matching key: CredentialKey?, in collection: OpenCollection) throws(VaultError) -> [FoundItem] {
        var attempt = 0
        while true {
            attempt += 1
            let (items, lost) = try searchOnce(matching: key, in: collection)
            if !lost || attempt == Self.searchAttempts { return items }
        }
    }

    /// One search: the items found, and whether an item was gone before its properties were read.
    private func searchOnce(matching key: CredentialKey?, in collection: OpenCollection) throws(VaultError) -> ([FoundItem], lost: Bool) {
        var paths: [String] = []
        do throws(GLibError) {
            if let key {
                for attributes in ItemShape.searches(for: key) {
                    paths += try ItemCalls.search(attributes, connection: collection.connection, timeoutMilliseconds: callTimeoutMilliseconds)
                }
            } else {
                paths = try ItemCalls.items(
                    ofCollection: collection.path, connection: collection.connection, timeoutMilliseconds: callTimeoutMilliseconds)
            }
        } catch {
            throw collection.failure(error, doing: key == nil ? "read the items of \(collection.path)" : "search the keyring")
        }
        let prefix = collection.path + "/"
        var seen: Set<String> = []
        var items: [FoundItem] = []
        var lost = false
        for path in paths where path.hasPrefix(prefix) && seen.insert(path).inserted {
            let found: ItemProperties?
            do throws(GLibError) {
                found = try ItemCalls.properties(of: path, connection: collection.connection, timeoutMilliseconds: callTimeoutMilliseconds)
            } catch {
                throw collection.failure(error, doing: "read the properties of an item")
            }
            guard let properties = found else {
                lost = true
                continue
            }
            guard let match = ItemShape.classify(properties.attributes), key == nil || match.key == key else { continue }
            items.append(
                FoundItem(
                    path: path, key: match.key, shape: match.shape, label: properties.label, modified: properties.modified,
                    created: properties.created, locked: properties.locked))
        }
        return (items, lost)
    }

    /// Creates a new item of `key` in the current shape in `collection`, the default
    /// collection's object path (no collection is ever created). Never "replace": GNOME Keyring's replace deletes
    /// every item whose attributes include the new item's, i.e. the neighbours.
    private static func create(
        _ credential: Credential, key: CredentialKey, value: OpaquePointer, in open: OpenCollection,
        cancellable: UnsafeMutablePointer<GCancellable>
    ) throws(VaultError) {
        let collection = open.path
        let service = try open.libsecretService(cancellable: cancellable)
        defer { g_object_unref(UnsafeMutableRawPointer(service)) }
        var error: UnsafeMutablePointer<GError>? = nil
        guard let proxy = secret_collection_for_alias_sync(service, "default", SECRET_COLLECTION_NONE, cancellable, &error) else {
            throw failure(GLibError.take(&error), doing: "open the default collection")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(proxy)) }
        let path = proxy.withMemoryRebound(to: GDBusProxy.self, capacity: 1) { g_dbus_proxy_get_object_path($0) }
        guard let path, String(cString: path) == collection else {
            throw .backendUnavailable("Secret Service: the default collection changed while vault used it; try again")
        }
        try GLibMemory.withStringTable(ItemShape.storeAttributes(for: key)) { (table) throws(VaultError) in
            var error: UnsafeMutablePointer<GError>? = nil
            let item = secret_item_create_sync(
                proxy, LibSecretSchema.schema(for: key.kind).pointer, table, credential.label, value,
                SECRET_ITEM_CREATE_NONE, cancellable, &error)
            let failure = GLibError.take(&error)
            guard let item, failure == nil else {
                if let item { g_object_unref(UnsafeMutableRawPointer(item)) }
                throw open.failure(failure, doing: "store the item")
            }
            g_object_unref(UnsafeMutableRawPointer(item))
        }
    }

    /// A new SecretValue holding a copy of `secret` ("text/plain" when it is UTF-8 text, so
    /// `secret-tool lookup` prints it). The caller unrefs it; libsecret wipes its copy.
    private static func newValue(_ secret: Secret) -> OpaquePointer {
        // Text only when it survives as text: KeePassXC keeps a text/plain secret as an
        // entry field, which drops a leading byte-order mark at once and cuts at a NUL
        // when the database is saved.
        let isText = secret.utf8String != nil && !secret.bytes.contains(0) && !secret.bytes.starts(with: [0xEF, 0xBB, 0xBF])
        let contentType = isText ? "text/plain" : "application/octet-stream"
        if secret.bytes.isEmpty { return secret_value_new("", 0, contentType) }
        return secret.bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: gchar.self) { secret_value_new($0.baseAddress, gssize($0.count), contentType) }
        }
    }

    /// The `VaultError` for a failed call. A FALSE/NULL without a GError is what
    /// libsecret returns for an attribute the schema does not declare.
    static func failure(_ error: GLibError?, doing action: String) -> VaultError {
        guard let error else {
            return .backendUnavailable("Secret Service: could not \(action) (libsecret gave no reason)")
        }
        if error.isLocked {
            return .locked("could not \(action): \(error.message); unlock the Secret Service's collection")
        }
        if error.isNoOwner {
            return .backendUnavailable("no Secret Service on the session bus (could not \(action))")
        }
        if error.isTimeout {
            return VaultError.backendUnavailable("the Secret Service does not answer (could not \(action): \(error.message))")
                .with(.retryOrUseAnotherBackend)
        }
        return .backendUnavailable("Secret Service: could not \(action): \(error.message)")
    }
}

extension SecretServiceStore.FoundItem {
    /// True when `self` is preferred to `other`: the better shape, then the newer
    /// `Modified`, then the newer `Created` (both have a resolution of one second), then the
    /// greater object path (a longer one, else the greater bytes: GNOME Keyring numbers its
    /// items, so the one made last). A total order, so two processes that find the same
    /// items pick the same one whatever order the service lists them in.
    func isPreferred(to other: Self) -> Bool {
        if shape != other.shape { return shape < other.shape }
        if modified != other.modified { return modified > other.modified }
        if created != other.created { return created > other.created }
        if path.utf8.count != other.path.utf8.count { return path.utf8.count > other.path.utf8.count }
        return other.path.utf8.lexicographicallyPrecedes(path.utf8)
    }
}

extension Array where Element == SecretServiceStore.FoundItem {
    /// The item `load` reads and `save` updates: the first by `FoundItem.isPreferred(to:)`.
    var preferred: Element? { self.min { $0.isPreferred(to: $1) } }
}
