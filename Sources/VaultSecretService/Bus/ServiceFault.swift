// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Why a method call failed, as the D-Bus error the client gets. Messages name what was
/// wrong, never a secret.
struct ServiceFault: Error, Sendable, Equatable {
    /// The D-Bus error name.
    var name: String
    var message: String

    static func invalidArgs(_ message: String) -> ServiceFault { ServiceFault(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message) }
    static func notSupported(_ message: String) -> ServiceFault { ServiceFault(name: "org.freedesktop.DBus.Error.NotSupported", message: message) }
    static func failed(_ message: String) -> ServiceFault { ServiceFault(name: "org.freedesktop.DBus.Error.Failed", message: message) }
    static func limitsExceeded(_ message: String) -> ServiceFault {
        ServiceFault(name: "org.freedesktop.DBus.Error.LimitsExceeded", message: message)
    }
    static let accessDenied = ServiceFault(
        name: "org.freedesktop.DBus.Error.AccessDenied", message: "only the user who runs the provider may use it")
    static let isLocked = ServiceFault(
        name: "org.freedesktop.Secret.Error.IsLocked", message: "the vault is locked: run `vault unlock`")
    static let noSession = ServiceFault(name: "org.freedesktop.Secret.Error.NoSession", message: "no such session of this client")
    static func noSuchObject(_ path: String) -> ServiceFault {
        ServiceFault(name: "org.freedesktop.Secret.Error.NoSuchObject", message: "no such object: \(path.prefix(200))")
    }
    static func unknownMethod(_ interface: String, _ member: String, _ signature: String) -> ServiceFault {
        ServiceFault(
            name: "org.freedesktop.DBus.Error.UnknownMethod",
            message: "no method \(interface.prefix(100)).\(member.prefix(100)) with arguments (\(signature.prefix(100)))")
    }
    static func unknownProperty(_ name: String) -> ServiceFault {
        ServiceFault(name: "org.freedesktop.DBus.Error.UnknownProperty", message: "no property \(name.prefix(200))")
    }
    static func readOnly(_ name: String) -> ServiceFault {
        ServiceFault(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: "the property \(name.prefix(200)) is read-only")
    }
}
