// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// A signal to emit once a call is answered.
struct Signal: Sendable {
    var path: String
    var interface: String
    var name: String
    var arguments: [DBusValue]
}

/// What a method handler returns: the reply's arguments, and the signals that follow it.
struct Answer: Sendable {
    var values: [DBusValue]
    var signals: [Signal] = []

    init(_ values: [DBusValue], signals: [Signal] = []) {
        self.values = values
        self.signals = signals
    }

    /// `PropertiesChanged` for `interface` at `path`.
    static func propertiesChanged(_ path: String, _ interface: String, _ changed: [(String, DBusValue)]) -> Signal {
        Signal(
            path: path, interface: "org.freedesktop.DBus.Properties", name: "PropertiesChanged",
            arguments: [.string(interface), .properties(changed), .array(elementType: "s", [])])
    }
}

/// The interface names.
enum Interface {
    static let service = "org.freedesktop.Secret.Service"
    static let collection = "org.freedesktop.Secret.Collection"
    static let item = "org.freedesktop.Secret.Item"
    static let session = "org.freedesktop.Secret.Session"
    static let prompt = "org.freedesktop.Secret.Prompt"
    static let properties = "org.freedesktop.DBus.Properties"
    static let introspectable = "org.freedesktop.DBus.Introspectable"
}
