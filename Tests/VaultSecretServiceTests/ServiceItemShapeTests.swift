// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultStore
import VaultTestSupport

@Suite("ServiceItemShape", .offThePool)
struct ServiceItemShapeTests {
    @Test("a key's attributes name that key again, and nothing else does")
    func roundTrip() {
        let keys = [
            CredentialKey(server: "db.internal", account: "backup"),
            CredentialKey(server: "https://git.example.com:8443/org/repo.git", account: "bob"),
            CredentialKey(server: "https://login.example.com", account: "client", kind: .tokens),
        ]
        for key in keys {
            let attributes = ServiceItemShape.attributes(for: key)
            #expect(attributes["xdg:schema"] != nil)
            #expect(ServiceItemShape.credentialKey(for: attributes) == key)
            var extra = attributes
            extra["other"] = "x"
            #expect(ServiceItemShape.credentialKey(for: extra) == nil)
        }
        #expect(
            ServiceItemShape.attributes(for: keys[0]) == [
                "user": "backup", "server": "db.internal", "xdg:schema": "org.gnome.keyring.NetworkPassword",
            ])
        // Only vault's own schema: a client's other schema is kept as the client gave it.
        #expect(ServiceItemShape.credentialKey(for: ["user": "a", "server": "h", "xdg:schema": "org.freedesktop.Secret.Generic"]) == nil)
        #expect(ServiceItemShape.credentialKey(for: ["user": "a", "server": "h"]) == nil)
        #expect(
            ServiceItemShape.credentialKey(for: ["user": "a", "server": "h", "xdg:schema": "org.gnome.keyring.NetworkPassword"])
                == CredentialKey(server: "h", account: "a"))
        #expect(ServiceItemShape.credentialKey(for: ["user": "a", "server": "h", "xdg:schema": "org.example.Other"]) == nil)
        #expect(ServiceItemShape.credentialKey(for: ["user": "a"]) == nil)
        #expect(ServiceItemShape.credentialKey(for: ["user": "", "server": "h"]) == nil)
        // The legacy shape (whole URL in server plus protocol) is not the current shape.
        #expect(ServiceItemShape.credentialKey(for: ["user": "bob", "server": "https://h.example", "protocol": "https"]) == nil)
    }
}
