// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultTestSupport

@testable import VaultStore

/// A write that reuses the last write's order (``WriteOrder``) writes the very bytes a
/// write from scratch does, whatever was added, changed or removed in between, and
/// whatever order it was handed.
@Suite(.cpuBound) struct WriteOrderTests {
    /// A small deterministic generator (xorshift64*), so a failure replays.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return state &* 2_685_821_657_736_338_717
        }
    }

    /// Servers that sort in tricky ways: shared prefixes, upper case, non-ASCII, and
    /// "é" both precomposed and decomposed (one key for a Swift dictionary).
    static let servers = [
        "a.example", "a.example.org", "A.example", "b.example", "é.example", "e\u{301}.example", "ß.example", "😀.example",
        "https://a.example", "https://a.example:8443", "server-1.example", "server-10.example", "server-2.example",
    ]
    static let accounts = ["alice", "Alice", "bob", "émile", "e\u{301}mile", "carol-1", "carol-10"]

    static func randomCredential(_ generator: inout Generator) -> Credential {
        let key = CredentialKey(
            server: servers.randomElement(using: &generator)!, account: accounts.randomElement(using: &generator)!,
            kind: ItemKind.allCases.randomElement(using: &generator)!)
        return Credential(key: key, secret: Secret("secret-\(generator.next() % 1000)"))
    }

    static func randomItem(_ generator: inout Generator, collections: [String]) -> ServiceItem {
        let reference = ServiceItem.Reference(
            collection: collections.randomElement(using: &generator)!, id: "i\(generator.next() % 40)")
        return ServiceItem(
            reference: reference, label: "item", attributes: ["user": accounts.randomElement(using: &generator)!, "b": "1", "a": "2"],
            contentType: "text/plain", secret: Secret("s\(generator.next() % 100)"), created: 1, modified: generator.next() % 5)
    }

    @Test func aReusedOrderWritesTheSameBytesAsAFreshOne() throws {
        var generator = Generator(state: 0x9E37_79B9_7F4A_7C15)
        var contents = VaultContents()
        var order = WriteOrder()
        var versions: Set<UInt16> = []
        for step in 0..<400 {
            switch generator.next() % 6 {
            case 0, 1:
                let credential = Self.randomCredential(&generator)
                contents.credentials[credential.key] = credential
            case 2:
                if let key = contents.credentials.keys.randomElement(using: &generator) { contents.credentials[key] = nil }
            case 3:
                if contents.collections.isEmpty {
                    contents.collections["c1"] = ServiceCollection(id: "c1", label: "one", created: 1, modified: 1)
                }
                let item = Self.randomItem(&generator, collections: [ServiceCollection.loginID, "c1"])
                contents.items[item.reference] = item
            case 4:
                if let reference = contents.items.keys.randomElement(using: &generator) { contents.items[reference] = nil }
            default:
                // Several at once, as a save that replaces a client's items does.
                for _ in 0..<3 {
                    let credential = Self.randomCredential(&generator)
                    contents.credentials[credential.key] = credential
                }
                for reference in contents.items.keys.prefix(2) { contents.items[reference] = nil }
            }
            if contents.items.isEmpty { contents.collections = [:] }
            let reused = try ContentsCodec.encode(contents, order: &order)
            let fresh = try ContentsCodec.encode(contents)
            #expect(reused.version == fresh.version, "step \(step)")
            #expect(reused.body == fresh.body, "step \(step): the reused order wrote other bytes")
            versions.insert(fresh.version)
            // What was written reads back as the contents.
            #expect(try ContentsCodec.decode(reused.body, version: reused.version) == contents, "step \(step)")
        }
        #expect(versions == [1, 2], "the run wrote both versions")
    }

    @Test func anOrderFromOtherContentsOnlyCostsTime() throws {
        var generator = Generator(state: 42)
        var first = VaultContents()
        var second = VaultContents()
        for _ in 0..<60 {
            let credential = Self.randomCredential(&generator)
            first.credentials[credential.key] = credential
            let other = Self.randomCredential(&generator)
            second.credentials[other.key] = other
        }
        var order = WriteOrder()
        _ = try ContentsCodec.encode(first, order: &order)
        let reused = try ContentsCodec.encode(second, order: &order)
        #expect(reused.body == (try ContentsCodec.encode(second)).body)
        #expect(order.credentials == second.credentials.keys.sorted(), "the order now is the second contents' own")
    }

    @Test func theSameBytesAreTheSame() {
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var last = bytes
        last[last.count - 1] ^= 1
        var first = bytes
        first[0] ^= 0x80
        #expect(bytes.hasSameBytes(as: bytes))
        #expect(bytes.hasSameBytes(as: Array(bytes)))
        #expect(!bytes.hasSameBytes(as: last))
        #expect(!bytes.hasSameBytes(as: first))
        #expect(!bytes.hasSameBytes(as: Array(bytes.dropLast())))
        #expect([UInt8]().hasSameBytes(as: []))
        #expect(![UInt8]().hasSameBytes(as: [0]))
    }
}
