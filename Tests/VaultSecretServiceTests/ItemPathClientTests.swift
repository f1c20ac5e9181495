// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultSecretService
import VaultStore
import VaultTestSupport

/// Item paths as a D-Bus client (jeepney) sees them while other clients and other processes
/// change the vault (issue 27, finding 1: a client's remembered path of a credential that
/// another client moved to another account reached the credential saved later under the old
/// account; finding 2: `SetSecret` as `text/plain; charset=utf8` lost vault's credential).
/// "Another process's `vault save`" is a change of the backing between calls.
@Suite("Secret Service provider: item paths", .serialized, .offThePool)
struct ItemPathClientTests {
    static let alice = CredentialKey(server: "s.example", account: "alice")
    static let zed = CredentialKey(server: "s.example", account: "zed")
    static let noSuchObject = "answer error org.freedesktop.Secret.Error.NoSuchObject"

    @Test("a stale path never reaches a newer credential: the moved item keeps it, a save of the old key gets a new one")
    func stalePath() async throws {
        let backing = InMemoryServiceBacking(
            VaultContents(credentials: [Self.alice: Credential(key: Self.alice, secret: Secret("old-alice"), label: "a")]))
        try await withProvider(backing) { harness in
            let old = try #require(try await Self.search(harness, Self.alice).first)
            // Client B moves alice to zed: the item, its path with it.
            #expect(try await Self.setAttributes(harness, old, ServiceItemShape.attributes(for: Self.zed)) == "answer ok")
            #expect(backing.current.credentials[Self.zed]?.secret == Secret("old-alice") && backing.current.credentials[Self.alice] == nil)
            #expect(try await Self.search(harness, Self.zed) == [old])
            // `vault save` of alice again: a new item, at a new path.
            Self.save(backing, Self.alice, "new-alice")
            let new = try #require(try await Self.search(harness, Self.alice).first)
            #expect(new != old)
            // Client A writes to the path it remembers: zed's, never alice's.
            #expect(try await Self.setSecret(harness, old, "stale-write") == "answer ok")
            #expect(backing.current.credentials[Self.alice]?.secret == Secret("new-alice"))
            #expect(backing.current.credentials[Self.zed]?.secret == Secret("stale-write"))
            #expect(try await Self.delete(harness, old) == "answer ok")
            #expect(backing.current.credentials[Self.alice]?.secret == Secret("new-alice") && backing.current.credentials[Self.zed] == nil)
            // The path of a deleted item names nothing afterwards, even when its key is saved again.
            Self.save(backing, Self.zed, "new-zed")
            #expect(try await Self.setSecret(harness, old, "stale-write-2") == Self.noSuchObject)
            #expect(try await Self.delete(harness, old) == Self.noSuchObject)
            #expect(backing.current.credentials[Self.zed]?.secret == Secret("new-zed"))
            // `vault remove` then `vault save`: a new item, a new path.
            backing.state.withLock { $0.contents.credentials[Self.alice] = nil }
            #expect(try await Self.search(harness, Self.alice).isEmpty)
            Self.save(backing, Self.alice, "newest-alice")
            let newest = try #require(try await Self.search(harness, Self.alice).first)
            #expect(![old, new].contains(newest))
            #expect(try await Self.setSecret(harness, new, "stale-write-3") == Self.noSuchObject)
            #expect(backing.current.credentials[Self.alice]?.secret == Secret("newest-alice"))
        }
    }

    @Test("an item keeps its path: SetAttributes to a Service item and back to vault's shape, another process's save of its key")
    func pathKept() async throws {
        let backing = InMemoryServiceBacking(
            VaultContents(credentials: [Self.alice: Credential(key: Self.alice, secret: Secret("pw-1"), label: "a")]))
        try await withProvider(backing) { harness in
            let path = try #require(try await Self.search(harness, Self.alice).first)
            #expect(try await Self.setAttributes(harness, path, ["app": "other"]) == "answer ok")
            #expect(backing.current.credentials.isEmpty && backing.current.items.count == 1)
            #expect(try await Self.search(harness, ["app": "other"]) == [path])
            #expect(try await Self.setAttributes(harness, path, ServiceItemShape.attributes(for: Self.alice)) == "answer ok")
            #expect(backing.current.credentials[Self.alice]?.secret == Secret("pw-1") && backing.current.items.isEmpty)
            #expect(try await Self.search(harness, Self.alice) == [path])
            // `vault save` of a key that is there updates its item: same path.
            Self.save(backing, Self.alice, "pw-2")
            #expect(try await Self.search(harness, Self.alice) == [path])
            #expect(try await harness.secretTool(["lookup", "user", "alice", "server", "s.example"]).out == "pw-2")
            #expect(try await Self.setSecret(harness, path, "pw-3") == "answer ok")
            #expect(backing.current.credentials[Self.alice]?.secret == Secret("pw-3"))
        }
    }

    @Test("SetSecret as text/plain with parameters keeps vault's credential; a binary secret keeps the item, as a Service item, and logs it")
    func contentTypes() async throws {
        let backing = InMemoryServiceBacking(
            VaultContents(credentials: [Self.alice: Credential(key: Self.alice, secret: Secret("pw-1"), label: "a")]))
        try await withProvider(backing) { harness in
            let path = try #require(try await Self.search(harness, Self.alice).first)
            for (secret, type) in [("pw-2", "text/plain; charset=utf8"), ("pw-3", "TEXT/Plain"), ("pw-4", " text/plain ;charset=\"utf-8\"")] {
                #expect(try await Self.setSecret(harness, path, secret, contentType: type) == "answer ok")
                #expect(backing.current.credentials[Self.alice]?.secret == Secret(secret), "\(type)")
                #expect(backing.current.items.isEmpty, "\(type)")
            }
            let looked = try await harness.secretTool(["lookup", "user", "alice", "server", "s.example"])
            #expect(looked.out == "pw-4", "\(looked.err)")
            #expect(try await Self.setSecret(harness, path, "blob", contentType: "application/octet-stream") == "answer ok")
            #expect(backing.current.credentials.isEmpty)
            #expect(backing.current.items.values.map(\.contentType) == ["application/octet-stream"])
            #expect(try await Self.search(harness, Self.alice) == [path])
            #expect(harness.log.text.contains("alice at s.example"), "\(harness.log.text)")
            #expect(!harness.log.text.contains("blob"))
        }
    }

    @Test("CreateItem with replace leaves one item of the attributes, whatever the content types, and no old path names it twice")
    func replace() async throws {
        let backing = InMemoryServiceBacking(
            VaultContents(credentials: [Self.alice: Credential(key: Self.alice, secret: Secret("pw-1"), label: "a")]))
        try await withProvider(backing) { harness in
            let attributes = ServiceItemShape.attributes(for: Self.alice)
            let path = try #require(try await Self.search(harness, Self.alice).first)
            // A duplicate beside the credential (no replace), then a replace: one item left, the credential.
            let duplicate = try #require(try await Self.create(harness, replace: false, "dup", attributes: attributes))
            #expect(duplicate != path && backing.current.items.count == 1)
            #expect(try await Self.create(harness, replace: true, "pw-2", attributes: attributes) == path)
            #expect(backing.current.items.isEmpty && backing.current.credentials[Self.alice]?.secret == Secret("pw-2"))
            #expect(try await Self.search(harness, Self.alice) == [path])
            #expect(try await Self.setSecret(harness, duplicate, "stale") == Self.noSuchObject)
            // A binary secret replacing the credential: one item left, at the credential's path, and the log says so.
            #expect(try await Self.create(harness, replace: true, "bin", contentType: "application/octet-stream", attributes: attributes) == path)
            #expect(backing.current.credentials.isEmpty && backing.current.items.count == 1)
            #expect(try await Self.search(harness, Self.alice) == [path])
            #expect(harness.log.text.contains("replaced vault's credential for alice at s.example"), "\(harness.log.text)")
        }
    }

    // MARK: - Calls

    /// `CreateItem` in `login`; the new item's path (nil when it failed).
    static func create(
        _ harness: ProviderHarness, replace: Bool, _ secret: String, contentType: String = "text/plain", attributes: [String: String]
    ) async throws -> String? {
        let arguments = ["create", replace ? "1" : "0", secret, contentType] + attributes.map { "\($0.key)=\($0.value)" }
        let result = try await harness.python(jeepneyClient, arguments)
        #expect(result.status == 0 && result.out.hasSuffix("ok\n"), "\(result.out) \(result.err)")
        return result.out.split(separator: "\n").first { $0.hasPrefix("path ") }.map { String($0.dropFirst(5)) }
    }

    static func save(_ backing: InMemoryServiceBacking, _ key: CredentialKey, _ secret: String) {
        backing.state.withLock { $0.contents.credentials[key] = Credential(key: key, secret: Secret(secret), label: key.account) }
    }

    static func search(_ harness: ProviderHarness, _ key: CredentialKey) async throws -> [String] {
        try await search(harness, ["user": key.account, "server": key.server])
    }

    static func search(_ harness: ProviderHarness, _ attributes: [String: String]) async throws -> [String] {
        let result = try await harness.python(jeepneyClient, ["search"] + attributes.map { "\($0.key)=\($0.value)" })
        #expect(result.status == 0 && result.out.hasSuffix("ok\n"), "\(result.out) \(result.err)")
        return result.out.split(separator: "\n").filter { $0.hasPrefix("path ") }.map { String($0.dropFirst(5)) }
    }

    static func setAttributes(_ harness: ProviderHarness, _ path: String, _ attributes: [String: String]) async throws -> String {
        try await answer(harness, ["set-attributes", path] + attributes.map { "\($0.key)=\($0.value)" })
    }

    static func setSecret(_ harness: ProviderHarness, _ path: String, _ secret: String, contentType: String = "text/plain") async throws -> String {
        try await answer(harness, ["set-secret", path, secret, contentType])
    }

    static func delete(_ harness: ProviderHarness, _ path: String) async throws -> String {
        try await answer(harness, ["delete", path])
    }

    /// The `answer …` line of a one-call scenario.
    static func answer(_ harness: ProviderHarness, _ arguments: [String]) async throws -> String {
        let result = try await harness.python(jeepneyClient, arguments)
        #expect(result.status == 0 && result.out.hasSuffix("ok\n"), "\(result.out) \(result.err)")
        let line = result.out.split(separator: "\n").first { $0.hasPrefix("answer ") } ?? ""
        return line.trimmingCharacters(in: .whitespaces)
    }
}
