// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CGio
import Logging
import VaultStore
import VaultSync

/// The Secret Service (`org.freedesktop.secrets` on the user's session bus) served from a
/// ``SecretServiceBacking``.
///
/// Calls arrive on GDBus's worker thread and each runs in its own Task, after the same
/// client's earlier calls (answered in order) but beside other clients' calls, so a slow
/// backing call holds up no other client; only callers of the provider's own uid are served.
/// Collections and items follow docs/secret-service.md: `login` (alias `default`) holds
/// vault's own items in their keyring shape and the items clients stored there; other
/// collections hold what clients stored in them.
public final class SecretServiceProvider: Sendable {
    /// Why the provider could not start.
    public enum StartError: Error, Equatable, Sendable, CustomStringConvertible {
        /// No session bus to connect to (the reason, one line).
        case noSessionBus(String)
        /// Someone else holds `org.freedesktop.secrets`: who (`pid 812 (gnome-keyring-d)`,
        /// or the unique name when the bus does not say).
        case nameTaken(owner: String)

        public var description: String {
            switch self {
            case .noSessionBus(let why): "no session bus: \(why)"
            case .nameTaken(let owner): "org.freedesktop.secrets is already served on this bus by \(owner)"
            }
        }
    }

    /// The well-known name.
    static let busName = "org.freedesktop.secrets"

    let backing: any SecretServiceBacking
    let logger: Logger
    let busAddress: String?
    private let running = Locked<(core: ProviderCore, filter: MessageFilter)?>(nil)

    /// A provider for `backing`, on the bus at `busAddress` (nil: `DBUS_SESSION_BUS_ADDRESS`).
    public init(backing: any SecretServiceBacking, logger: Logger, busAddress: String? = nil) {
        self.backing = backing
        self.logger = logger
        self.busAddress = busAddress
    }

    /// Connects, exports the objects and claims `org.freedesktop.secrets` (never queued
    /// behind its owner); returns once clients can call.
    public func start() async throws(StartError) {
        guard let address = busAddress ?? Self.environment("DBUS_SESSION_BUS_ADDRESS"), !address.isEmpty else {
            throw .noSessionBus("DBUS_SESSION_BUS_ADDRESS is not set")
        }
        let connection = try BusConnection(address: address)
        let core = ProviderCore(backing: backing, connection: connection, logger: logger)
        let filter = MessageFilter(
            connection: connection, onCall: { call in core.enqueue(call) },
            onClientGone: { name in core.state.withLock { $0.forget(name) } })
        filter.install()
        do throws(StartError) {
            try claimName(connection)
        } catch {
            filter.remove()
            connection.close()
            throw error
        }
        backing.onLockChange { [weak core] in core?.lockChanged() }
        running.withLock { $0 = (core, filter) }
        logger.info("serving org.freedesktop.secrets on the session bus as \(connection.uniqueName)")
    }

    /// Returns when the bus connection closes under a running provider (true: the bus went
    /// away, as at the end of a `dbus-run-session`), or when ``stop()`` stopped it (false).
    /// Looks twice a second.
    public func waitUntilBusCloses() async -> Bool {
        while true {
            guard let connection = running.withLock({ $0?.filter.connection }) else { return false }
            if connection.isClosed { return true }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }

    /// Releases the name, ends the sessions, closes the connection.
    public func stop() async {
        guard
            let stopping = running.withLock({ running in
                defer { running = nil }; return running
            })
        else { return }
        let core = stopping.core
        let connection = stopping.filter.connection
        stopping.filter.remove()
        _ = connection.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ReleaseName", [.string(Self.busName)])
        core.state.withLock { $0.sessions.removeAll() }
        connection.close()
    }

    private func claimName(_ connection: BusConnection) throws(StartError) {
        let dbus = ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus")
        // 4: DBUS_NAME_FLAG_DO_NOT_QUEUE. Replies: 1 primary owner, 3 exists, 4 already owner.
        switch connection.call(dbus.0, dbus.1, dbus.2, "RequestName", [.string(Self.busName), .uint32(4)]) {
        case .failure(let error): throw .noSessionBus("RequestName failed: \(error.message)")
        case .success(let values):
            if case .uint32(let code)? = values.first, code == 1 || code == 4 { return }
        }
        guard case .success(let owner) = connection.call(dbus.0, dbus.1, dbus.2, "GetNameOwner", [.string(Self.busName)]),
            let unique = owner.first?.string
        else { throw .nameTaken(owner: "another connection") }
        guard case .success(let pid) = connection.call(dbus.0, dbus.1, dbus.2, "GetConnectionUnixProcessID", [.string(unique)]),
            case .uint32(let number)? = pid.first
        else { throw .nameTaken(owner: unique) }
        var contents: UnsafeMutablePointer<gchar>?
        guard g_file_get_contents("/proc/\(number)/comm", &contents, nil, nil) != 0, let contents else {
            throw .nameTaken(owner: "pid \(number)")
        }
        defer { g_free(contents) }
        let command = String(cString: contents).filter { $0 != "\n" }
        throw .nameTaken(owner: "pid \(number) (\(command))")
    }

    private static func environment(_ name: String) -> String? { g_getenv(name).map { String(cString: $0) } }
}

extension ProviderCore {
    /// Tells clients the vault was locked or unlocked: `Locked` of every collection
    /// (`PropertiesChanged`) and `CollectionChanged`.
    func lockChanged() {
        let locked = backing.isLocked
        let ids = state.withLock { state in
            if locked {
                state.followed = nil
                state.locks += 1
            }
            return state.knownCollections
        }
        for id in ids {
            let path = ObjectPath.collectionPath(id)
            emit(
                path, Interface.properties, "PropertiesChanged",
                [.string(Interface.collection), .properties([("Locked", .boolean(locked))]), .array(elementType: "s", [])])
            emit(ObjectPath.root, Interface.service, "CollectionChanged", [.objectPath(path)])
        }
        logger.info("the vault is \(locked ? "locked" : "unlocked"): Secret Service clients were told")
    }
}
