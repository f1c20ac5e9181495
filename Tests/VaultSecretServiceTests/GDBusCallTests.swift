// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultSecretService
import VaultStore
import VaultTestSupport

@Suite("Secret Service provider: gdbus calls", .serialized, .offThePool)
struct GDBusCallTests {
    static let root = "/org/freedesktop/secrets"

    @Test("Service: properties, aliases, sessions, introspection")
    func service() async throws {
        try await withProvider { harness in
            let collections = try await harness.gdbus(
                Self.root, "org.freedesktop.DBus.Properties.Get", ["org.freedesktop.Secret.Service", "Collections"])
            #expect(collections.out.contains("'/org/freedesktop/secrets/collection/login'"), "\(collections.out) \(collections.err)")
            let alias = try await harness.gdbus(Self.root, "org.freedesktop.Secret.Service.ReadAlias", ["default"])
            #expect(alias.out.contains("'/org/freedesktop/secrets/collection/login'"), "\(alias.out) \(alias.err)")
            #expect(try await harness.gdbus(Self.root, "org.freedesktop.Secret.Service.ReadAlias", ["nothing"]).out.contains("'/'"))
            let session = try await harness.gdbus(Self.root, "org.freedesktop.Secret.Service.OpenSession", ["plain", "<''>"])
            #expect(session.out.contains("/org/freedesktop/secrets/session/"), "\(session.out) \(session.err)")
            let introspection = try await harness.run(
                "/usr/bin/gdbus", ["introspect", "--session", "--dest", "org.freedesktop.secrets", "--object-path", Self.root])
            #expect(introspection.out.contains("OpenSession") && introspection.out.contains("node collection"), "\(introspection.out)")
            let aliased = try await harness.gdbus(
                Self.root + "/aliases/default", "org.freedesktop.DBus.Properties.Get", ["org.freedesktop.Secret.Collection", "Label"])
            #expect(aliased.out.contains("'Login'"), "\(aliased.out) \(aliased.err)")
        }
    }

    @Test("Collection: create, label, alias, items, delete")
    func collection() async throws {
        try await withProvider { harness in
            let created = try await harness.gdbus(
                Self.root, "org.freedesktop.Secret.Service.CreateCollection", ["{'org.freedesktop.Secret.Collection.Label': <'Work Stuff'>}", "''"])
            #expect(created.out.contains("'/org/freedesktop/secrets/collection/work_stuff'"), "\(created.out) \(created.err)")
            #expect(harness.backing.current.collections["work_stuff"]?.label == "Work Stuff")
            let path = Self.root + "/collection/work_stuff"
            let set = try await harness.gdbus(
                path, "org.freedesktop.DBus.Properties.Set", ["org.freedesktop.Secret.Collection", "Label", "<'Renamed'>"])
            #expect(set.status == 0, "\(set.err)")
            let all = try await harness.gdbus(path, "org.freedesktop.DBus.Properties.GetAll", ["org.freedesktop.Secret.Collection"])
            #expect(all.out.contains("'Label': <'Renamed'>") && all.out.contains("'Locked': <false>"), "\(all.out)")
            #expect(try await harness.gdbus(Self.root, "org.freedesktop.Secret.Service.SetAlias", ["work", path]).status == 0)
            #expect(try await harness.gdbus(Self.root, "org.freedesktop.Secret.Service.ReadAlias", ["work"]).out.contains(path))
            // Creating with an existing alias returns that collection.
            let again = try await harness.gdbus(
                Self.root, "org.freedesktop.Secret.Service.CreateCollection", ["{'org.freedesktop.Secret.Collection.Label': <'X'>}", "'work'"])
            #expect(again.out.contains(path), "\(again.out)")

            let stored = try await harness.secretTool(["store", "--collection=\(path)", "--label=w", "team", "ops"], stdin: "work-pw")
            #expect(stored.status == 0, "\(stored.err)")
            let item = try #require(harness.backing.current.items.values.first)
            #expect(item.reference.collection == "work_stuff")
            let items = try await harness.gdbus(path, "org.freedesktop.DBus.Properties.Get", ["org.freedesktop.Secret.Collection", "Items"])
            #expect(items.out.contains("\(path)/\(item.reference.id)"), "\(items.out)")
            let searched = try await harness.gdbus(path, "org.freedesktop.Secret.Collection.SearchItems", ["{'team': 'ops'}"])
            #expect(searched.out.contains(item.reference.id), "\(searched.out)")

            #expect(try await harness.gdbus(Self.root + "/collection/login", "org.freedesktop.Secret.Collection.Delete").status != 0)
            #expect(try await harness.gdbus(path, "org.freedesktop.Secret.Collection.Delete").status == 0)
            #expect(harness.backing.current.collections.isEmpty && harness.backing.current.items.isEmpty)
            #expect(try await harness.gdbus(Self.root, "org.freedesktop.Secret.Service.ReadAlias", ["work"]).out.contains("'/'"))
        }
    }

    @Test("Item: properties, relabel, new attributes, delete")
    func item() async throws {
        try await withProvider { harness in
            #expect(try await harness.secretTool(["store", "--label=first", "app", "x"], stdin: "item-pw").status == 0)
            let id = try #require(harness.backing.current.items.keys.first?.id)
            let path = Self.root + "/collection/login/\(id)"
            let all = try await harness.gdbus(path, "org.freedesktop.DBus.Properties.GetAll", ["org.freedesktop.Secret.Item"])
            #expect(all.out.contains("'Label': <'first'>") && all.out.contains("'app': 'x'") && all.out.contains("'Created': <uint64"), "\(all.out)")
            #expect(!all.out.contains("item-pw"))
            #expect(
                try await harness.gdbus(path, "org.freedesktop.DBus.Properties.Set", ["org.freedesktop.Secret.Item", "Label", "<'second'>"]).status
                    == 0)
            #expect(harness.backing.current.items.values.first?.label == "second")
            let attributes = try await harness.gdbus(
                path, "org.freedesktop.DBus.Properties.Set", ["org.freedesktop.Secret.Item", "Attributes", "<{'app': 'y', 'extra': 'z'}>"])
            #expect(attributes.status == 0, "\(attributes.err)")
            #expect(harness.backing.current.items.values.first?.attributes == ["app": "y", "extra": "z"])
            #expect(
                try await harness.gdbus(path, "org.freedesktop.DBus.Properties.Set", ["org.freedesktop.Secret.Item", "Created", "<uint64 5>"]).status
                    != 0)
            // Attributes in vault's shape, its schema included, turn the item into a vault credential.
            let shaped = try await harness.gdbus(
                path, "org.freedesktop.DBus.Properties.Set",
                [
                    "org.freedesktop.Secret.Item", "Attributes",
                    "<{'user': 'u', 'server': 'h.internal', 'xdg:schema': 'org.gnome.keyring.NetworkPassword'}>",
                ])
            #expect(shaped.status == 0, "\(shaped.err)")
            #expect(harness.backing.current.items.isEmpty)
            #expect(harness.backing.current.credentials[CredentialKey(server: "h.internal", account: "u")]?.secret == Secret("item-pw"))
            #expect(try await harness.secretTool(["clear", "user", "u"]).status == 0)
            #expect(harness.backing.current.credentials.isEmpty)
        }
    }
}
