// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The introspection XML of the provider's objects (what `gdbus call` and `busctl` read to
/// know the argument types).
enum Introspection {
    /// A method: its name, its in and out arguments (`name:type`).
    private static func method(_ name: String, in inputs: [String] = [], out outputs: [String] = []) -> String {
        let arguments =
            inputs.map { argument($0, direction: "in") } + outputs.map { argument($0, direction: "out") }
        return "    <method name=\"\(name)\">" + arguments.joined() + "</method>\n"
    }

    private static func argument(_ spec: String, direction: String?) -> String {
        let parts = spec.split(separator: ":", maxSplits: 1).map(String.init)
        let direction = direction.map { " direction=\"\($0)\"" } ?? ""
        return "<arg name=\"\(parts[0])\" type=\"\(parts[1])\"\(direction)/>"
    }

    private static func signal(_ name: String, _ arguments: [String]) -> String {
        "    <signal name=\"\(name)\">" + arguments.map { argument($0, direction: nil) }.joined() + "</signal>\n"
    }

    private static func property(_ name: String, _ type: String, writable: Bool = false) -> String {
        "    <property name=\"\(name)\" type=\"\(type)\" access=\"\(writable ? "readwrite" : "read")\"/>\n"
    }

    private static func interface(_ name: String, _ members: [String]) -> String {
        "  <interface name=\"\(name)\">\n" + members.joined() + "  </interface>\n"
    }

    static let properties =
        interface(
            Interface.properties,
            [
                method("Get", in: ["interface:s", "name:s"], out: ["value:v"]),
                method("GetAll", in: ["interface:s"], out: ["properties:a{sv}"]),
                method("Set", in: ["interface:s", "name:s", "value:v"]),
                signal("PropertiesChanged", ["interface:s", "changed:a{sv}", "invalidated:as"]),
            ])
        + interface(Interface.introspectable, [method("Introspect", out: ["xml:s"])])

    static let service = interface(
        Interface.service,
        [
            method("OpenSession", in: ["algorithm:s", "input:v"], out: ["output:v", "result:o"]),
            method("CreateCollection", in: ["properties:a{sv}", "alias:s"], out: ["collection:o", "prompt:o"]),
            method("SearchItems", in: ["attributes:a{ss}"], out: ["unlocked:ao", "locked:ao"]),
            method("Unlock", in: ["objects:ao"], out: ["unlocked:ao", "prompt:o"]),
            method("Lock", in: ["objects:ao"], out: ["locked:ao", "prompt:o"]),
            method("GetSecrets", in: ["items:ao", "session:o"], out: ["secrets:a{o(oayays)}"]),
            method("ReadAlias", in: ["name:s"], out: ["collection:o"]),
            method("SetAlias", in: ["name:s", "collection:o"]),
            property("Collections", "ao"),
            signal("CollectionCreated", ["collection:o"]),
            signal("CollectionDeleted", ["collection:o"]),
            signal("CollectionChanged", ["collection:o"]),
        ])

    static let collection = interface(
        Interface.collection,
        [
            method("Delete", out: ["prompt:o"]),
            method("SearchItems", in: ["attributes:a{ss}"], out: ["results:ao"]),
            method("CreateItem", in: ["properties:a{sv}", "secret:(oayays)", "replace:b"], out: ["item:o", "prompt:o"]),
            property("Items", "ao"), property("Label", "s", writable: true), property("Locked", "b"),
            property("Created", "t"), property("Modified", "t"),
            signal("ItemCreated", ["item:o"]), signal("ItemDeleted", ["item:o"]), signal("ItemChanged", ["item:o"]),
        ])

    static let item = interface(
        Interface.item,
        [
            method("Delete", out: ["prompt:o"]),
            method("GetSecret", in: ["session:o"], out: ["secret:(oayays)"]),
            method("SetSecret", in: ["secret:(oayays)"]),
            property("Locked", "b"), property("Attributes", "a{ss}", writable: true), property("Label", "s", writable: true),
            property("Created", "t"), property("Modified", "t"),
        ])

    static let session = interface(Interface.session, [method("Close")])

    static let prompt = interface(
        Interface.prompt,
        [method("Prompt", in: ["window-id:s"]), method("Dismiss"), signal("Completed", ["dismissed:b", "result:v"])])

    /// A node with `interfaces` (XML) and `children` (names).
    static func node(_ interfaces: String, children: [String] = []) -> String {
        "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\"\n"
            + " \"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n<node>\n" + interfaces
            + children.map { "  <node name=\"\($0)\"/>\n" }.joined() + "</node>\n"
    }
}
