// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The plaintext body of a vault file of either version, and which version to write.
///
/// ```
/// version 1: item section (ItemCodec)                                           zero padding
/// version 2: item section (ItemCodec), collections and items (ServiceItemCodec), zero padding
/// ```
///
/// Contents that ``VaultContents/fitsVersion1`` are written as version 1, so a file stays
/// readable by an older vault until it holds a Secret Service item, and goes back to
/// version 1 when the last one is removed.
package enum ContentsCodec {
    /// The format version and the padded body for `contents`; `.invalidInput` for contents
    /// a reader would refuse (``ServiceItemCodec``'s checks).
    package static func encode(_ contents: VaultContents) throws(VaultError) -> (version: UInt16, body: [UInt8]) {
        var order = WriteOrder()
        return try encode(contents, order: &order)
    }

    /// ``encode(_:)``, reusing and updating `order`, the order of an earlier write: the
    /// same bytes, sooner (``WriteOrder``).
    package static func encode(_ contents: VaultContents, order: inout WriteOrder) throws(VaultError) -> (version: UInt16, body: [UInt8]) {
        // The last body's size, when known, spares a pass over every item to estimate it.
        let capacity =
            order.bodySize > 0
            ? order.bodySize + 4 * ItemCodec.padding
            : ItemCodec.estimatedSize(contents.credentials) + ServiceItemCodec.estimatedSize(contents) + ItemCodec.padding
        var writer = ByteWriter(capacity: capacity)
        ItemCodec.append(contents.credentials, to: &writer, order: &order.credentials)
        let version: UInt16 = contents.fitsVersion1 ? 1 : 2
        if version == 2 { try ServiceItemCodec.append(contents, to: &writer, order: &order.items) }
        ItemCodec.pad(&writer)
        order.bodySize = writer.bytes.count
        return (version, writer.bytes)
    }

    /// The contents of a body of format `version` (1 or 2); whatever follows the last
    /// section (the padding) is ignored.
    package static func decode(_ body: [UInt8], version: UInt16) throws(VaultError) -> VaultContents {
        var reader = ByteReader(body)
        let credentials = try ItemCodec.read(from: &reader, bodySize: body.count)
        guard version >= 2 else { return VaultContents(credentials: credentials) }
        let (collections, items) = try ServiceItemCodec.read(from: &reader)
        return VaultContents(credentials: credentials, collections: collections, items: items)
    }
}
