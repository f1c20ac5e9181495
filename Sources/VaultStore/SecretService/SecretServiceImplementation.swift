// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CLibSecret

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Which program owns `org.freedesktop.secrets`, so that an error can name the real
/// service and give the fix that applies to it, and for what only one service needs (how
/// a secret travels, KeePassXC's in-place relabel).
///
/// Found from the owner's process: the bus's `GetConnectionUnixProcessID`, then the
/// command name in `/proc/PID/comm`; `.other(nil)` when that fails (another PID namespace),
/// so a choice that matters is made only on a positive answer.
enum SecretServiceImplementation: Equatable {
    case gnomeKeyring
    case keePassXC
    /// Another program (its command name), or one vault could not identify (nil).
    case other(String?)

    /// Asks the bus who owns `org.freedesktop.secrets` (bounded by `timeoutMilliseconds`).
    static func current(connection: OpaquePointer, timeoutMilliseconds: Int32) -> SecretServiceImplementation {
        guard
            let reply = try? SecretServiceDBus.call(
                connection, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                method: "GetConnectionUnixProcessID", arguments: [g_variant_new_string(SecretServiceDBus.busName)],
                timeoutMilliseconds: timeoutMilliseconds)
        else { return .other(nil) }
        defer { g_variant_unref(reply) }
        let child = g_variant_get_child_value(reply, 0)!
        defer { g_variant_unref(child) }
        return named(command(ofProcess: g_variant_get_uint32(child)))
    }

    /// The implementation a process command name stands for.
    static func named(_ command: String?) -> SecretServiceImplementation {
        guard let command else { return .other(nil) }
        let lowered = command.lowercased()
        if lowered.hasPrefix("gnome-keyring") { return .gnomeKeyring }
        if lowered.hasPrefix("keepassxc") { return .keePassXC }
        return .other(command)
    }

    /// The name to show in messages.
    var name: String {
        switch self {
        case .gnomeKeyring: "GNOME Keyring"
        case .keePassXC: "KeePassXC"
        case .other(let command?): "the Secret Service (\(command))"
        case .other(nil): "the Secret Service"
        }
    }

    /// What to do about a locked collection.
    var unlockHint: String {
        switch self {
        case .gnomeKeyring: "unlock it (log in to the desktop, or `gnome-keyring-daemon --unlock` fed the password on stdin)"
        case .keePassXC: "unlock the database in KeePassXC"
        case .other: "unlock it in \(name)"
        }
    }

    /// What to do when the service has no default collection (a program adds its own way
    /// out: ``VaultError/Remedy/createCollection(_:)``).
    var noCollectionHint: String {
        switch self {
        case .gnomeKeyring: "create a keyring, e.g. with `gnome-keyring-daemon --unlock`"
        case .keePassXC: "open and unlock a database in KeePassXC with a group exposed in Database Settings → Secret Service Integration"
        case .other: "create one in \(name)"
        }
    }

    /// What to do when a client's access to an item was not approved.
    var accessHint: String {
        switch self {
        case .keePassXC:
            "allow vault when KeePassXC asks, or turn off \"Confirm when passwords are retrieved by clients\" "
                + "in KeePassXC's Tools → Settings → Secret Service Integration"
        default: "allow vault's access when \(name) asks"
        }
    }

    /// What to do when a deletion was not confirmed.
    var deletionHint: String {
        switch self {
        case .keePassXC:
            "confirm the deletion when KeePassXC asks, or turn off \"Confirm when clients request entry deletion\" "
                + "in KeePassXC's Tools → Settings → Secret Service Integration"
        default: "confirm the deletion when \(name) asks"
        }
    }

    /// The command name of process `pid`, from `/proc/PID/comm`.
    private static func command(ofProcess pid: UInt32) -> String? {
        let descriptor = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return nil }
        var name = buffer[..<count]
        while name.last == UInt8(ascii: "\n") { name = name.dropLast() }
        return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
    }
}
