// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The two sections a version 2 body adds after vault's own items (``ContentsCodec``): the
/// collections other than `login`, sorted by id, then the Secret Service items, sorted by
/// reference, each with its attributes sorted by name. Reading refuses anything malformed as
/// `.corrupted("the decrypted contents are malformed")`, and a count larger than the rest of the
/// body could hold before it allocates. The layout and every refusal: docs/file-format.md,
/// "Body, version 2".
enum ServiceItemCodec {
    /// The smallest collection record: a one-byte id, an empty label, two timestamps.
    static let minimumCollectionSize = 4 + 1 + 4 + 8 + 8
    /// The smallest item record: one-byte ids, empty label, content type and secret, no attribute.
    static let minimumItemSize = 4 + 1 + 4 + 1 + 4 + 4 + 8 + 8 + 4 + 4
    /// The smallest attribute: an empty name and value.
    static let minimumAttributeSize = 8

    /// Appends both sections. Contents a reader would refuse are refused here first, as
    /// `.invalidInput`, so vault never writes a file it cannot read.
    static func append(_ contents: VaultContents, to writer: inout ByteWriter) throws(VaultError) {
        var order: [ServiceItem.Reference] = []
        try append(contents, to: &writer, order: &order)
    }

    /// Both sections, the items in `order`, the references of an earlier write in their
    /// order, reused and updated (``WriteOrder``).
    static func append(_ contents: VaultContents, to writer: inout ByteWriter, order: inout [ServiceItem.Reference]) throws(VaultError) {
        try checkCollections(contents)
        let collections = contents.collections.values.sorted { $0.id < $1.id }
        writer.append(UInt32(collections.count))
        for collection in collections {
            writer.appendField(collection.id.utf8)
            writer.appendField(collection.label.utf8)
            writer.append(collection.created)
            writer.append(collection.modified)
        }
        let entries = WriteOrder.entries(of: contents.items, reusing: order, by: <)
        order = entries.map(\.key)
        writer.append(UInt32(entries.count))
        for (reference, item) in entries {
            // Checked as it is written: one pass over the items, not two.
            try check(item, at: reference, in: contents)
            writer.appendField(item.reference.collection.utf8)
            writer.appendField(item.reference.id.utf8)
            writer.appendField(item.label.utf8)
            writer.appendField(item.contentType.utf8)
            writer.append(item.created)
            writer.append(item.modified)
            writer.append(UInt32(item.attributes.count))
            for (name, value) in item.attributes.sorted(by: { utf8Precedes($0.key, $1.key) }) {
                writer.appendField(name.utf8)
                writer.appendField(value.utf8)
            }
            writer.appendField(item.secret.bytes)
        }
    }

    /// The unpadded size of both sections, about.
    static func estimatedSize(_ contents: VaultContents) -> Int {
        let collections = contents.collections.values.reduce(4) { $0 + minimumCollectionSize + $1.id.utf8.count + $1.label.utf8.count }
        return contents.items.values.reduce(collections + 4) { size, item in
            item.attributes.reduce(size + minimumItemSize + item.label.utf8.count + item.contentType.utf8.count + item.secret.bytes.count + 128) {
                $0 + minimumAttributeSize + $1.key.utf8.count + $1.value.utf8.count
            }
        }
    }

    /// Reads both sections at the reader's position.
    static func read(
        from reader: inout ByteReader
    ) throws(VaultError) -> (
        collections: [String: ServiceCollection], items: [ServiceItem.Reference: ServiceItem]
    ) {
        guard let collectionCount = reader.readUInt32(), Int(collectionCount) <= reader.remaining / minimumCollectionSize else {
            throw malformed
        }
        var collections: [String: ServiceCollection] = [:]
        collections.reserveCapacity(Int(collectionCount))
        for _ in 0..<collectionCount {
            let id = try readID(&reader)
            guard id != ServiceCollection.loginID, collections[id] == nil,
                let label = reader.readField().flatMap(ItemCodec.string), let created = reader.readUInt64(),
                let modified = reader.readUInt64()
            else { throw malformed }
            collections[id] = ServiceCollection(id: id, label: label, created: created, modified: modified)
        }
        guard let itemCount = reader.readUInt32(), Int(itemCount) <= reader.remaining / minimumItemSize else { throw malformed }
        var items: [ServiceItem.Reference: ServiceItem] = [:]
        items.reserveCapacity(Int(itemCount))
        for _ in 0..<itemCount {
            let collection = try readID(&reader)
            guard collection == ServiceCollection.loginID || collections[collection] != nil else { throw malformed }
            let reference = ServiceItem.Reference(collection: collection, id: try readID(&reader))
            guard items[reference] == nil, let label = reader.readField().flatMap(ItemCodec.string),
                let contentType = reader.readField().flatMap(ItemCodec.string), let created = reader.readUInt64(),
                let modified = reader.readUInt64(), let attributeCount = reader.readUInt32(),
                Int(attributeCount) <= reader.remaining / minimumAttributeSize
            else { throw malformed }
            var attributes: [String: String] = [:]
            attributes.reserveCapacity(Int(attributeCount))
            for _ in 0..<attributeCount {
                guard let name = reader.readField().flatMap(ItemCodec.string), attributes[name] == nil,
                    let value = reader.readField().flatMap(ItemCodec.string)
                else { throw malformed }
                attributes[name] = value
            }
            guard let secret = reader.readField() else { throw malformed }
            items[reference] = ServiceItem(
                reference: reference, label: label, attributes: attributes, contentType: contentType,
                secret: Secret(bytes: Array(secret)), created: created, modified: modified)
        }
        return (collections, items)
    }

    /// Whether `a`'s UTF-8 sorts before `b`'s: one `memcmp` (the attributes of every item
    /// are sorted at every write; comparing `utf8` views byte by byte was a tenth of a save).
    static func utf8Precedes(_ a: String, _ b: String) -> Bool {
        var (a, b) = (a, b)
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let common = min(x.count, y.count)
                let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                return order != 0 ? order < 0 : x.count < y.count
            }
        }
    }

    /// What ``read(from:)`` would refuse in the collections, as `.invalidInput` (nothing
    /// secret in the message); ``check(_:at:in:)`` checks each item as it is written.
    private static func checkCollections(_ contents: VaultContents) throws(VaultError) {
        for (id, collection) in contents.collections {
            guard ServiceCollection.isValidID(id), id == collection.id else {
                throw .invalidInput("a collection id must be 1 to 64 of A-Z, a-z, 0-9 and _, and match its key")
            }
            guard id != ServiceCollection.loginID else {
                throw .invalidInput("the login collection always exists and is not stored as a collection record")
            }
        }
    }

    /// What ``read(from:)`` would refuse in one item, as `.invalidInput`.
    private static func check(_ item: ServiceItem, at reference: ServiceItem.Reference, in contents: VaultContents) throws(VaultError) {
        guard reference == item.reference, ServiceCollection.isValidID(reference.id) else {
            throw .invalidInput("an item id must be 1 to 64 of A-Z, a-z, 0-9 and _, and match its key")
        }
        guard reference.collection == ServiceCollection.loginID || contents.collections[reference.collection] != nil else {
            throw .invalidInput("an item's collection (\(reference.collection)) does not exist")
        }
    }

    private static func readID(_ reader: inout ByteReader) throws(VaultError) -> String {
        guard let bytes = reader.readField() else { throw malformed }
        guard let id = ItemCodec.string(bytes), ServiceCollection.isValidID(id) else { throw malformed }
        return id
    }

    private static var malformed: VaultError { ItemCodec.malformed }
}

extension ServiceCollection {
    /// True for a valid collection or item id: 1 to 64 of `A-Z`, `a-z`, `0-9` and `_` (an
    /// object path element). The vault file refuses any other.
    public static func isValidID(_ id: String) -> Bool {
        let bytes = id.utf8
        return (1...64).contains(bytes.count)
            && bytes.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F }
    }
}
