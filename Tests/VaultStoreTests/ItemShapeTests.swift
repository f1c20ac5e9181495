// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultTestSupport

@testable import VaultStore

/// The neighbours rule and the network-address mapping, without a keyring.
@Suite(.offThePool) struct ItemShapeTests {
    @Test(arguments: [
        ("https://other.example.com:8443/path", ["protocol": "https", "server": "other.example.com", "port": "8443", "object": "path"]),
        ("https://git.example.com/org/repo.git", ["protocol": "https", "server": "git.example.com", "object": "org/repo.git"]),
        ("http://127.0.0.1:8080", ["protocol": "http", "server": "127.0.0.1", "port": "8080"]),
        ("imap://ex.com", ["protocol": "imap", "server": "ex.com"]),
        ("https://[::1]:443/x", ["protocol": "https", "server": "[::1]", "port": "443", "object": "x"]),
    ])
    func canonicalURLsSplitLikeGitsHelperAndComeBack(server: String, expected: [String: String]) throws {
        let key = CredentialKey(server: server, account: "carol")
        #expect(ItemShape.storeAttributes(for: key) == expected.merging(["user": "carol"]) { $1 })
        let classified = try #require(ItemShape.classify(ItemShape.storeAttributes(for: key)))
        #expect(classified.key == key)
        #expect(classified.shape == .current)
    }

    @Test(arguments: [
        "ex.com", "HTTPS://ex.com", "https://Ex.com", "https://ex.com/", "https://ex.com:08443", "https://ex.com:0",
        "https://ex.com:99999", "https://u@ex.com", "https://ex.com/a?b", "https://ex.com/a#b", "https://", "https://ex.com:",
        "not a url", "https://[::1", "https://a:b:c",
    ])
    func everythingElseIsStoredUnderItsWholeName(server: String) throws {
        let key = CredentialKey(server: server, account: "carol")
        #expect(ItemShape.storeAttributes(for: key) == ["user": "carol", "server": server])
        let classified = try #require(ItemShape.classify(["user": "carol", "server": server]))
        #expect(classified.key == key)
        #expect(classified.shape == .current)
    }

    @Test func neighboursAreNobodysItems() {
        let neighbours: [[String: String]] = [
            ["user": "alice", "server": "ex.com", "protocol": "imap", "port": "993", "authtype": "plain"],
            ["user": "alice", "server": "ex.com", "protocol": "https", "path": "/repo.git"],
            ["user": "alice", "server": "ex.com", "authtype": "ntlm"],
            ["user": "alice", "server": "ex.com", "domain": "CORP"],
            ["user": "alice", "server": "ex.com", "port": "8443"],
            ["user": "alice", "server": "ex.com", "object": "repo.git"],
            ["user": "alice", "server": "ex.com", "application": "evolution"],
            ["user": "alice", "server": "ex.com", "protocol": "HTTPS"],
            ["user": "alice", "server": "ex.com", "protocol": "https", "port": "08443"],
            ["user": "alice", "server": "ex.com", "protocol": "https", "object": ""],
            ["user": "alice", "server": "https://ex.com", "protocol": "imap"],
            ["user": "alice", "server": "https://ex.com:8443", "protocol": "https"],
            ["vault-kind": "tokens", "vault-server": "ex.com", "vault-account": "alice", "extra": "1"],
            ["vault-kind": "password", "vault-server": "ex.com", "vault-account": "alice"],
            ["server": "ex.com"], ["user": "alice"],
        ]
        for attributes in neighbours {
            #expect(ItemShape.classify(attributes) == nil, "\(attributes)")
        }
    }

    @Test func keePassXCAttributesAndTheSchemaNameDoNotCount() throws {
        let attributes = [
            "user": "alice", "server": "ex.com", "xdg:schema": "org.freedesktop.Secret.Generic", "Title": "t",
            "UserName": "alice", "URL": "", "Notes": "", "Path": "vault/t", "Uuid": "0123",
        ]
        let classified = try #require(ItemShape.classify(attributes))
        #expect(classified.key == CredentialKey(server: "ex.com", account: "alice"))
        // A lower-case `path` (another application's) is not KeePassXC's `Path`.
        #expect(ItemShape.classify(attributes.merging(["path": "/repo.git"]) { $1 }) == nil)
    }

    @Test func urlKeysAlsoOwnThePlainPairAndTheLegacyShape() throws {
        let key = CredentialKey(server: "https://other.example.com:8443/path", account: "carol")
        let shapes = ItemShape.shapes(for: key)
        #expect(shapes.map { $0.shape } == [.current, .plainPair, .legacy])
        #expect(shapes[1].attributes == ["user": "carol", "server": key.server])
        #expect(shapes[2].attributes == ["user": "carol", "server": key.server, "protocol": "https", "port": "8443"])
        for (shape, attributes) in shapes {
            let classified = try #require(ItemShape.classify(attributes))
            #expect(classified.key == key)
            #expect(classified.shape == shape)
        }
        // The legacy shape without the port, or with another protocol, is not vault's.
        #expect(ItemShape.classify(["user": "carol", "server": key.server, "protocol": "https"]) == nil)
        #expect(ItemShape.searches(for: key) == [["user": "carol", "server": "other.example.com"], ["user": "carol", "server": key.server]])

        let bare = CredentialKey(server: "ex.com", account: "alice")
        #expect(ItemShape.shapes(for: bare).map { $0.shape } == [.current])
        #expect(ItemShape.searches(for: bare) == [["user": "alice", "server": "ex.com"]])
    }
}
