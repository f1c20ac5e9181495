// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Logging
import Testing
import VaultStore
import VaultTestSupport

@testable import VaultSecretService

/// A search through the attribute index finds what a walk over every item finds, in the
/// same order: with credentials and Service items, several collections, empty and missing
/// queries, and names and values that differ only in their Unicode normalization (equal
/// to Swift's strings, different to GNOME Keyring and to us).
@Suite("Secret Service search by attribute index", .offThePool)
struct AttributeIndexTests {
    /// "é" precomposed and decomposed: canonically equivalent, different bytes.
    static let values = ["a", "b", "\u{E9}", "e\u{301}", ""]
    static let names = ["app", "user", "\u{E9}t\u{E9}", "e\u{301}te\u{301}"]

    @Test("an index search equals a walk over every item, for 300 random vaults and queries")
    func matchesAWalk() throws {
        var random = SeededGenerator(seed: 0x5EA2C4)
        for _ in 0..<300 {
            let contents = Self.contents(&random)
            var paths = ItemPaths()
            _ = paths.update(for: contents)
            let model = ServiceModel(contents: contents, paths: paths, index: AttributeIndex(contents))
            let stored = contents.credentials.keys.map(ServiceItemShape.attributes(for:)) + contents.items.values.map(\.attributes)
            for _ in 0..<10 {
                // Part of a stored item's attributes (a query that finds something), with a random pair now and then.
                var query = stored.randomElement(using: &random)?.filter { _ in Bool.random(using: &random) } ?? [:]
                query.merge(Self.attributes(&random, upTo: Int.random(in: 0...3, using: &random) == 0 ? 1 : 0)) { _, new in new }
                for collection in [nil] + model.collectionIDs.map(Optional.some) + ["missing"] {
                    let walked = (collection.map { [$0] } ?? model.collectionIDs).flatMap {
                        model.items(in: $0).filter { AttributeMatching.matches($0.attributes, query) }
                    }
                    #expect(model.search(query, in: collection) == walked, "query \(query) in \(collection ?? "every collection")")
                }
            }
        }
    }

    @Test("a precomposed value does not find the decomposed one, and the other way round")
    func normalizationsStayApart() {
        let stored = ServiceItem(
            reference: .init(collection: ServiceCollection.loginID, id: "s1"), label: "x", attributes: ["app": "\u{E9}"],
            contentType: "text/plain", secret: Secret("s"), created: 0, modified: 0)
        let contents = VaultContents(items: [stored.reference: stored])
        var paths = ItemPaths()
        _ = paths.update(for: contents)
        let model = ServiceModel(contents: contents, paths: paths, index: AttributeIndex(contents))
        #expect(model.search(["app": "\u{E9}"]).map(\.id) == ["s1"])
        #expect(model.search(["app": "e\u{301}"]).isEmpty)
    }

    /// SplitMix64: the same vaults and queries on every run.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func contents(_ random: inout SeededGenerator) -> VaultContents {
        var contents = VaultContents()
        let collections = ["login", "work", "zz"]
        for id in collections.dropFirst() where Bool.random(using: &random) {
            contents.collections[id] = ServiceCollection(id: id, label: id, created: 0, modified: 0)
        }
        for number in 0..<Int.random(in: 0..<12, using: &random) {
            let key = CredentialKey(server: values.randomElement(using: &random)! + ".example", account: "u\(number)")
            contents.credentials[key] = Credential(key: key, secret: Secret("c\(number)"), label: "c\(number)")
        }
        for number in 0..<Int.random(in: 0..<30, using: &random) {
            // Items of a collection the contents do not have are left out, as they were by the walk.
            let reference = ServiceItem.Reference(collection: collections.randomElement(using: &random)!, id: "s\(number)")
            contents.items[reference] = ServiceItem(
                reference: reference, label: "s\(number)", attributes: attributes(&random, upTo: 4), contentType: "text/plain",
                secret: Secret("s\(number)"), created: 0, modified: 0)
        }
        return contents
    }

    static func attributes(_ random: inout SeededGenerator, upTo count: Int) -> [String: String] {
        var attributes: [String: String] = [:]
        for _ in 0..<Int.random(in: 0...count, using: &random) {
            attributes[names.randomElement(using: &random)!] = values.randomElement(using: &random)!
        }
        return attributes
    }
}

/// What the index is built from and when it is reused, against the bytes clients see
/// (attack review of the index: both made a search find the other normalization).
@Suite("Secret Service search: the index follows the bytes", .offThePool)
struct AttributeIndexBytesTests {
    static let precomposed = "jos\u{E9}"
    static let decomposed = "jose\u{301}"

    /// A vault whose credential of `account` sits under the dictionary key of `keyAccount`
    /// (what saving the other normalization over an existing key leaves).
    static func contents(account: String, keyAccount: String) -> VaultContents {
        let key = CredentialKey(server: "h.example", account: keyAccount)
        let stored = CredentialKey(server: "h.example", account: account)
        return VaultContents(credentials: [key: Credential(key: stored, secret: Secret("one"), label: "h")])
    }

    static func found(_ model: ServiceModel, _ user: String) -> Int { model.search(["user": user]).count }

    @Test("a credential is indexed by its own key's bytes, not by the dictionary's key")
    func credentialsOwnKey() {
        let contents = Self.contents(account: Self.decomposed, keyAccount: Self.precomposed)
        var paths = ItemPaths()
        _ = paths.update(for: contents)
        let model = ServiceModel(contents: contents, paths: paths, index: AttributeIndex(contents))
        #expect(Self.found(model, Self.decomposed) == 1 && Self.found(model, Self.precomposed) == 0)
    }

    @Test("contents rewritten to another normalization are indexed again, though Swift finds them equal")
    func equivalentContentsAreNotReused() async throws {
        let backing = InMemoryServiceBacking(Self.contents(account: Self.precomposed, keyAccount: Self.precomposed))
        let core = ProviderCore(backing: backing, logger: Logger(label: "test"))
        #expect(Self.found(try await core.model(), Self.precomposed) == 1)
        #expect(Self.found(try await core.model(), Self.precomposed) == 1, "the same snapshot, reused")
        let rewritten = Self.contents(account: Self.decomposed, keyAccount: Self.decomposed)
        #expect(rewritten == backing.current, "Swift's == cannot tell them apart")
        backing.state.withLock { $0.contents = rewritten }
        let model = try await core.model()
        #expect(Self.found(model, Self.decomposed) == 1 && Self.found(model, Self.precomposed) == 0)
    }
}
