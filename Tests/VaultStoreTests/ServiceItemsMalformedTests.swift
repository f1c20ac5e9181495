// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport
import VaultTesting

@testable import VaultStore

private typealias F = ServiceItemsFixtures

/// A version 2 body that breaks a rule is refused as `.corrupted`, never a crash or a large
/// allocation: each case is written by hand, byte by byte, after a valid item section.
@Suite(.offThePool) struct ServiceItemsMalformedTests {
    static let malformed = VaultError.corrupted("the decrypted contents are malformed")

    /// A body piece: a field (u32 length and bytes), or raw bytes.
    enum Piece {
        case field(String)
        case rawField([UInt8])
        case u32(UInt32)
        case u64(UInt64)
        case raw([UInt8])
    }

    static func body(_ pieces: [Piece], credentials: Bool = true, padded: Bool = true) -> [UInt8] {
        var writer = ByteWriter()
        if credentials {
            ItemCodec.append([CredentialKey(server: "s", account: "a"): Credential(server: "s", account: "a", secret: Secret("x"))], to: &writer)
        } else {
            writer.append(UInt32(0))
        }
        for piece in pieces {
            switch piece {
            case .field(let text): writer.appendField(text.utf8)
            case .rawField(let bytes): writer.appendField(bytes)
            case .u32(let value): writer.append(value)
            case .u64(let value): writer.append(value)
            case .raw(let bytes): writer.append(raw: bytes)
            }
        }
        if padded { ItemCodec.pad(&writer) }
        return writer.bytes
    }

    static func collection(_ id: String) -> [Piece] { [.field(id), .field("label"), .u64(1), .u64(2)] }

    static func item(_ collection: String, _ id: String, attributes: [Piece] = [.u32(0)], secret: Piece = .field("s")) -> [Piece] {
        [.field(collection), .field(id), .field("label"), .field("text/plain"), .u64(1), .u64(2)] + attributes + [secret]
    }

    /// What each case breaks, and its body.
    static let cases: [(String, [UInt8])] = [
        ("a collection count beyond the body", body([.u32(.max)])),
        ("a collection count the padded body cannot hold", body([.u32(20)])),
        ("an item count beyond the body", body([.u32(0), .u32(.max)])),
        ("an attribute count beyond the body", body([.u32(0), .u32(1)] + item("login", "i", attributes: [.u32(.max)]))),
        ("no collection section", body([], padded: false)),
        ("no item section", body([.u32(0)], padded: false)),
        ("an item cut short", body([.u32(0), .u32(1), .field("login"), .field("i")], padded: false)),
        ("a field longer than the body", body([.u32(0), .u32(1), .field("login"), .u32(1_000_000)])),
        ("a login collection record", body([.u32(1)] + collection("login") + [.u32(0)])),
        ("one collection twice", body([.u32(2)] + collection("work") + collection("work") + [.u32(0)])),
        ("an item in a collection that does not exist", body([.u32(0), .u32(1)] + item("work", "i"))),
        ("one item twice", body([.u32(0), .u32(2)] + item("login", "i") + item("login", "i"))),
        (
            "one attribute name twice",
            body([.u32(0), .u32(1)] + item("login", "i", attributes: [.u32(2), .field("a"), .field("1"), .field("a"), .field("2")]))
        ),
        ("an empty collection id", body([.u32(1)] + collection("") + [.u32(0)])),
        ("an empty item id", body([.u32(0), .u32(1)] + item("login", ""))),
        ("an id with a dash", body([.u32(0), .u32(1)] + item("login", "a-b"))),
        ("an id with a slash", body([.u32(1)] + collection("a/b") + [.u32(0)])),
        ("a non-ASCII id", body([.u32(0), .u32(1)] + item("login", "é"))),
        ("a 65-byte id", body([.u32(0), .u32(1)] + item("login", String(repeating: "x", count: 65)))),
        ("an id that is not UTF-8", body([.u32(0), .u32(1), .field("login"), .rawField([0xc3, 0x28])] + Array(item("login", "i").dropFirst(2)))),
        ("a collection label that is not UTF-8", body([.u32(1), .field("work"), .rawField([0xff]), .u64(1), .u64(2), .u32(0)])),
        (
            "an item label that is not UTF-8",
            body([.u32(0), .u32(1), .field("login"), .field("i"), .rawField([0xed, 0xa0, 0x80])] + Array(item("login", "i").dropFirst(3)))
        ),
        (
            "a content type that is not UTF-8",
            body([.u32(0), .u32(1), .field("login"), .field("i"), .field("l"), .rawField([0xc0, 0xaf])] + Array(item("login", "i").dropFirst(4)))
        ),
        (
            "an attribute name that is not UTF-8",
            body([.u32(0), .u32(1)] + item("login", "i", attributes: [.u32(1), .rawField([0xff]), .field("v")]))
        ),
        (
            "an attribute value that is not UTF-8",
            body([.u32(0), .u32(1)] + item("login", "i", attributes: [.u32(1), .field("n"), .rawField([0xfe])]))
        ),
        ("a secret cut short", body([.u32(0), .u32(1)] + item("login", "i", secret: .u32(5)), padded: false)),
        ("a credential section cut short", body([], credentials: false, padded: false).dropLast(1).map { $0 }),
    ]

    @Test func eachMalformedBodyIsRefused() {
        for (what, body) in Self.cases {
            #expect(throws: Self.malformed, "\(what)") { try ContentsCodec.decode(body, version: 2) }
        }
    }

    @Test func theCasesDifferFromAValidBodyInOneRuleOnly() throws {
        // The same builders make bodies that decode: the refusals come from the broken rule.
        let valid = Self.body(
            [.u32(1)] + Self.collection("work") + [.u32(2)] + Self.item("work", "i", attributes: [.u32(1), .field("a"), .field("1")])
                + Self.item("login", "j", secret: .rawField([])))
        let contents = try ContentsCodec.decode(valid, version: 2)
        #expect(contents.collections.keys.sorted() == ["work"])
        #expect(contents.items.keys.sorted() == [.init(collection: "login", id: "j"), .init(collection: "work", id: "i")])
        #expect(contents.items[.init(collection: "work", id: "i")]?.attributes == ["a": "1"])
        #expect(contents.credentials.count == 1)
        #expect(try ContentsCodec.decode(Self.body([.u32(0), .u32(0)]), version: 2) == VaultContents(credentials: contents.credentials))
        // Version 1 ignores what follows its item section.
        #expect(try ContentsCodec.decode(Self.body([.u32(.max)]), version: 1).items.isEmpty)
    }

    @Test(arguments: [0, 4, 8])
    func malformedFilesAreRefusedAsCorruptedThroughTheStore(caseIndex: Int) throws {
        try withTemporaryDirectory("vault-ss") { dir in
            let header = VaultFileFormat.Header(kdf: KDFParameters(log2N: 10), salt: VaultFileFormat.newSalt())
            let keys = try header.kdf.deriveKeys(passphrase: Secret(F.passphrase), salt: header.salt)
            let sealed = try VaultFileFormat.seal(Self.cases[caseIndex].1, version: 2, header: header, keys: keys)
            let path = "\(dir)/vault.db"
            #expect(FileManager.default.createFile(atPath: path, contents: Data(sealed), attributes: [.posixPermissions: 0o600]))
            #expect(throws: Self.malformed) { try F.store(dir).contents() }
            #expect(throws: Self.malformed) { try F.store(dir).list() }
            #expect(throws: Self.malformed) { try F.store(dir).save(Credential(server: "s", account: "b", secret: Secret("y"))) }
            #expect(try F.fileBytes(path) == sealed)
        }
    }
}
