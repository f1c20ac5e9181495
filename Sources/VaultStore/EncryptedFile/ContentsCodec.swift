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
    /// a reader would refuse (``ServiceItemCodec/check(_:)``).
    package static func encode(_ contents: VaultContents) throws(VaultError) -> (version: UInt16, body: [UInt8]) {
        var order = WriteOrder()
        return try encode(contents, order: &order)
    }

    /// ``encode(_:)``, reusing and updating `order`, the order of an earlier write: the
    /// same bytes, sooner (``WriteOrder``).
    package static func encode(_ contents: VaultContents, order: inout WriteOrder) throws(VaultError) -> (version: UInt16, body: [UInt8]) {
        var writer = ByteWriter(
            capacity: ItemCodec.estimatedSize(contents.credentials) + ServiceItemCodec.estimatedSize(contents) + ItemCodec.padding)
        ItemCodec.append(contents.credentials, to: &writer, order: &order.credentials)
        guard !contents.fitsVersion1 else {
            ItemCodec.pad(&writer)
            return (1, writer.bytes)
        }
        try ServiceItemCodec.append(contents, to: &writer, order: &order.items)
        ItemCodec.pad(&writer)
        return (2, writer.bytes)
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
