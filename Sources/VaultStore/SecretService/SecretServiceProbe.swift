// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CLibSecret
import Dispatch
import VaultSync

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Asks, within a time bound, whether a Secret Service answers on the session bus, never
/// autolaunching D-Bus, never activating a service (`NO_AUTO_START`) and never hanging.
/// Only a clear absence (no address, no socket, no owner, an error answer) chooses the
/// file: a bus that does not say within the bound is *undecided*, since choosing the file
/// then would act on another store than the user's keyring (a `remove` that removes
/// nothing and exits 0). A service the bus names that is slow to answer counts as there.
/// On the process's own bus address it uses ``SessionBus``'s connection, which the store
/// then reuses. Docs: docs/secret-service.md, "Using vault on a server".
public enum SecretServiceProbe {
    /// The environment variable that names the session bus.
    public static let busAddressVariable = "DBUS_SESSION_BUS_ADDRESS"

    /// How many times the probe's bound a silent bus is waited for before the outcome is undecided.
    public static let undecidedFactor = 5

    /// What a probe found.
    public struct Outcome: Sendable, Equatable, CustomStringConvertible {
        /// ``Viability/Verdict/usable`` when the Secret Service answered within the bound, or
        /// the bus said it is there; ``Viability/Verdict/undecided`` when the bus never said
        /// whether one is there (neither backend can be chosen for the user).
        public var verdict: Viability.Verdict
        /// One line saying why (for `vault backend` and `--verbose`).
        public var reason: String
        /// How long the probe took.
        public var elapsed: Duration
        /// True when the verdict is ``Viability/Verdict/usable``.
        public var available: Bool { verdict == .usable }

        /// `available: REASON`, `unavailable: REASON` or `undecided: REASON`.
        public var description: String {
            let word =
                switch verdict {
                case .usable: "available"
                case .unusable: "unavailable"
                case .undecided: "undecided"
                }
            return "\(word): \(reason)"
        }
    }

    /// The default bound for automatic backend selection.
    public static let defaultTimeout: Duration = .seconds(2)

    /// Probes the session bus named by `environment[DBUS_SESSION_BUS_ADDRESS]`. Never
    /// throws; answers within `timeout` unless the bus is silent, and never blocks longer
    /// than `longest` (default ``undecidedFactor`` times `timeout`; plus thread start).
    public static func probe(environment: [String: String], timeout: Duration = defaultTimeout, longest: Duration? = nil) -> Outcome {
        let clock = ContinuousClock()
        let start = clock.now
        @Sendable func outcome(_ answer: Answer) -> Outcome {
            switch answer {
            case .there(let reason): Outcome(verdict: .usable, reason: reason, elapsed: clock.now - start)
            case .absent(let reason): Outcome(verdict: .unusable, reason: reason, elapsed: clock.now - start)
            case .undecided(let reason): Outcome(verdict: .undecided, reason: reason, elapsed: clock.now - start)
            }
        }
        guard let address = environment[busAddressVariable], !address.isEmpty else {
            return outcome(.absent("\(busAddressVariable) is not set"))
        }
        if address.contains("autolaunch:") {
            return outcome(.absent("\(busAddressVariable) asks for D-Bus autolaunch, which vault never triggers"))
        }
        let milliseconds = Self.milliseconds(timeout)
        let longest = Self.milliseconds(max(timeout, longest ?? timeout * undecidedFactor))
        let useShared = currentProcessBusAddress() == address
        let progress = ProbeProgress()
        let news = DispatchSemaphore(value: 0)
        // The connection attempt may block (a socket that accepts and never answers):
        // it runs on a thread of its own (never the concurrency pool's) and is abandoned
        // at the last deadline. Its calls may take as long as the probe may.
        Blocking.detach {
            let answer = ask(address: address, shared: useShared, timeoutMilliseconds: longest, slowAfter: milliseconds) {
                progress.ownerSeen.withLock { $0 = true }
                news.signal()
            }
            progress.answer.withLock { $0 = answer }
            news.signal()
        }
        let firstDeadline = DispatchTime.now() + .milliseconds(Int(milliseconds))
        let lastDeadline = DispatchTime.now() + .milliseconds(Int(longest))
        while true {
            if let answer = progress.answer.withLock({ $0 }) { return outcome(answer) }
            let owned = progress.ownerSeen.withLock { $0 }
            let now = DispatchTime.now()
            // The bus said the name is owned, and its owner is slow: a keyring busy on a loaded machine.
            if owned && now >= firstDeadline { return outcome(.there(slowOwnerReason(milliseconds))) }
            if now >= lastDeadline {
                return outcome(
                    .undecided(
                        "the session bus at \(address) did not say within \(longest) ms whether a Secret Service is on it"))
            }
            _ = news.wait(timeout: owned ? firstDeadline : lastDeadline)
        }
    }

    /// Why a Secret Service that is there but slow is used all the same.
    static func slowOwnerReason(_ milliseconds: Int32) -> String {
        "org.freedesktop.secrets is owned on the session bus but did not answer within \(milliseconds) ms; "
            + "vault waits for it rather than use another store"
    }

    /// The process's own session bus address (what GLib and libsecret would use).
    static func currentProcessBusAddress() -> String? {
        guard let value = getenv(busAddressVariable) else { return nil }
        let address = String(cString: value)
        return address.isEmpty ? nil : address
    }

    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(1, total))
    }

    /// What the bus and the service said.
    enum Answer: Sendable, Equatable {
        /// A Secret Service is there (it answered, or the bus says it has an owner).
        case there(String)
        /// Clearly none: no bus at the address, no owner, or an owner that answers with an error.
        case absent(String)
        /// The bus never said.
        case undecided(String)
    }

    /// Connects, asks the bus whether `org.freedesktop.secrets` has an owner (calling
    /// `ownerSeen` when it has), then asks the Secret Service itself; blocking. Each call
    /// waits up to `timeoutMilliseconds`; an owner slower than `slowAfter` is still there.
    private static func ask(
        address: String, shared: Bool, timeoutMilliseconds: Int32, slowAfter: Int32, ownerSeen: () -> Void
    ) -> Answer {
        var error: UnsafeMutablePointer<GError>? = nil
        let connection: OpaquePointer?
        if shared {
            do throws(GLibError) {
                connection = try SessionBus.connection()
            } catch {
                if error.isTimeout { return .undecided("the session bus at \(address) does not answer (\(error.message))") }
                return .absent("the session bus at \(address) does not answer (\(error.message))")
            }
        } else {
            let flags = GDBusConnectionFlags(
                G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                    | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
            connection = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error)
        }
        guard let connection else {
            let failure = GLibError.take(&error)
            let message = failure?.message ?? "no connection"
            if failure?.isTimeout == true { return .undecided("the session bus at \(address) does not answer (\(message))") }
            return .absent("the session bus at \(address) does not answer (\(message))")
        }
        defer {
            if !shared { g_dbus_connection_close_sync(connection, nil, nil) }
            g_object_unref(UnsafeMutableRawPointer(connection))
        }
        var owned = false
        do {
            // The bus daemon answers this itself, even while the service is slow.
            guard try SecretServiceDBus.nameHasOwner(connection, timeoutMilliseconds: timeoutMilliseconds) else {
                return .absent("no Secret Service on the session bus (org.freedesktop.secrets has no owner)")
            }
            owned = true
            ownerSeen()
            let value = try SecretServiceDBus.property(
                connection, path: SecretServiceDBus.servicePath, interface: SecretServiceDBus.serviceInterface,
                name: "Collections", timeoutMilliseconds: timeoutMilliseconds)
            g_variant_unref(value)
            return .there("org.freedesktop.secrets answers on the session bus")
        } catch {
            if error.isNoOwner {
                return .absent("no Secret Service on the session bus (org.freedesktop.secrets has no owner)")
            }
            if error.isTimeout {
                if owned { return .there(slowOwnerReason(slowAfter)) }
                return .undecided("the session bus at \(address) does not answer (\(error.message))")
            }
            return .absent("the Secret Service does not answer (\(error.message))")
        }
    }
}

/// Plain GDBus calls to the Secret Service, each with a timeout and without D-Bus
/// activation. Replies are returned with one reference the caller must `g_variant_unref`.
enum SecretServiceDBus {
    static let busName = "org.freedesktop.secrets"
    static let servicePath = "/org/freedesktop/secrets"
    static let serviceInterface = "org.freedesktop.Secret.Service"
    static let collectionInterface = "org.freedesktop.Secret.Collection"

    /// Calls `interface.method(arguments)` on `path`; `arguments` are floating GVariants
    /// that the call consumes. Returns the reply tuple (caller unrefs).
    static func call(
        _ connection: OpaquePointer, destination: String = busName, path: String, interface: String, method: String,
        arguments: [OpaquePointer], timeoutMilliseconds: Int32
    ) throws(GLibError) -> OpaquePointer {
        let parameters: OpaquePointer? = arguments.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: OpaquePointer?.self) { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
        }
        var error: UnsafeMutablePointer<GError>? = nil
        let reply = g_dbus_connection_call_sync(
            connection, destination, path, interface, method, parameters, nil, G_DBUS_CALL_FLAGS_NO_AUTO_START,
            timeoutMilliseconds, nil, &error)
        guard let reply else {
            throw GLibError.take(&error) ?? GLibError(domain: 0, code: 0, message: "no reply")
        }
        return reply
    }

    /// Whether `org.freedesktop.secrets` has an owner, as the bus daemon says (no call reaches the service).
    static func nameHasOwner(_ connection: OpaquePointer, timeoutMilliseconds: Int32) throws(GLibError) -> Bool {
        let reply = try call(
            connection, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: "NameHasOwner", arguments: [g_variant_new_string(busName)], timeoutMilliseconds: timeoutMilliseconds)
        defer { g_variant_unref(reply) }
        let child = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(child) }
        return g_variant_get_boolean(child) != 0
    }

    /// The string (or object path) at `child` of a reply tuple.
    static func string(_ reply: OpaquePointer, child index: Int) -> String {
        let child = g_variant_get_child_value(reply, gsize(index))!
        defer { g_variant_unref(child) }
        return String(cString: g_variant_get_string(child, nil))
    }

    /// A floating `ao` GVariant of `paths`.
    static func objectPaths(_ paths: [String]) -> OpaquePointer {
        let type = g_variant_type_new("ao")
        defer { g_variant_type_free(type) }
        let builder = g_variant_builder_new(type)
        defer { g_variant_builder_unref(builder) }
        for path in paths { g_variant_builder_add_value(builder, g_variant_new_object_path(path)) }
        return g_variant_builder_end(builder)
    }

    /// The value of property `interface.name` of `path` (caller unrefs).
    static func property(
        _ connection: OpaquePointer, path: String, interface: String, name: String, timeoutMilliseconds: Int32
    ) throws(GLibError) -> OpaquePointer {
        let reply = try call(
            connection, path: path, interface: "org.freedesktop.DBus.Properties", method: "Get",
            arguments: [g_variant_new_string(interface), g_variant_new_string(name)],
            timeoutMilliseconds: timeoutMilliseconds)
        defer { g_variant_unref(reply) }
        let boxed = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(boxed) }
        return g_variant_get_variant(boxed)
    }
}

extension GLibError: Error {}

/// What the probe thread has learned, shared with the waiting caller.
private final class ProbeProgress: Sendable {
    /// The bus said `org.freedesktop.secrets` has an owner.
    let ownerSeen = Locked(false)
    /// The probe's answer, once it has one.
    let answer = Locked<SecretServiceProbe.Answer?>(nil)
}
