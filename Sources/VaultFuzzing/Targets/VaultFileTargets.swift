// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// The vault file (docs/file-format.md), whole and its decrypted body alone.
enum VaultFileTargets {
    /// A whole file, read as vault reads one (header, header MAC, GCM tag, body), with the
    /// fixed key of ``VaultFileSamples`` whatever salt and work factor the header names (a
    /// real reader would derive another key from those, which cannot open the file either).
    /// Invariants: a refusal is one of the documented errors of its step; a file that opens
    /// is byte for byte one the target wrote (so the header MAC and the tag bind every byte:
    /// a file that opens with the right key never opens after any change); and what it holds
    /// is what was written, and re-encodes to the same body.
    static let file = FuzzTarget(
        name: "vault-file",
        summary: "a vault file opened with a fixed key: refused as documented, or one the target wrote, re-encoding to its body"
    ) { bytes throws(InvariantViolation) in
        guard let known = VaultFileSamples.shared else { throw InvariantViolation("the fixed vault key could not be derived") }
        do throws(VaultError) {
            _ = try VaultFileFormat.parseHeader(bytes)
        } catch {
            switch error {
            case .unsupportedFormat, .corrupted: return
            default: throw InvariantViolation("the header was refused with an undocumented error: \(error)")
            }
        }
        let body: [UInt8]
        do throws(VaultError) {
            body = try VaultFileFormat.open(bytes, keys: known.keys)
        } catch {
            switch error {
            case .wrongPassphrase, .corrupted: return
            default: throw InvariantViolation("opening was refused with an undocumented error: \(error)")
            }
        }
        guard let sample = known.samples.first(where: { $0.file == bytes }) else {
            throw InvariantViolation("a file the target did not write opened (\(bytes.count) bytes): a change went unauthenticated")
        }
        try require(body == sample.body, "\(sample.name) opened to another body")
        let contents: VaultContents
        do throws(VaultError) {
            contents = try ContentsCodec.decode(body, version: VaultFileFormat.formatVersion(of: bytes))
        } catch {
            throw InvariantViolation("\(sample.name), as written, does not decode: \(error)")
        }
        try require(contents == sample.contents, "\(sample.name) holds other contents than were written")
        try VaultContentsTargets.requireReencodes(contents, read: body, version: sample.version, exact: true)
    }
}

/// The decrypted body alone (``ContentsCodec``: vault's items, then in version 2 the Secret
/// Service collections and items), read as version 1 and as version 2.
///
/// Not every body that reads is the one encoding of its contents: the format lets a reader
/// ignore what follows the last section (the padding), keep the later of two items with one
/// key (or canonically equivalent keys), take items in any order, and report the default
/// label for an empty one; and a version 2 body with empty new sections holds what vault
/// writes as version 1. So the invariant is on values: what reads re-encodes without error
/// to a padded body that reads back to an equal value, and that encoding is a fixed point
/// (encoding what it reads gives the same bytes again).
enum VaultContentsTargets {
    static let contents = FuzzTarget(
        name: "vault-contents",
        summary: "a decrypted vault body as version 1 and 2: refused as corrupted, or re-encodes to a stable body of equal contents"
    ) { bytes throws(InvariantViolation) in
        for version: UInt16 in [1, 2] {
            let contents: VaultContents
            do throws(VaultError) {
                contents = try ContentsCodec.decode(bytes, version: version)
            } catch {
                guard case .corrupted = error else {
                    throw InvariantViolation("a version \(version) body was refused with an undocumented error: \(error)")
                }
                continue
            }
            try require(version == 2 || contents.fitsVersion1, "a version 1 body read to Secret Service items")
            try requireReencodes(contents, read: bytes, version: version, exact: false)
        }
    }

    /// `contents`, read from `body` of format `version`, encode to a padded body of the
    /// version vault writes them as, which reads back to equal contents and encodes to the
    /// same bytes again; with `exact`, the encoding is `body` itself (unless vault writes
    /// the contents at the lower version: a version 2 body with empty new sections).
    static func requireReencodes(_ contents: VaultContents, read body: [UInt8], version: UInt16, exact: Bool) throws(InvariantViolation) {
        let encoded: (version: UInt16, body: [UInt8])
        do throws(VaultError) {
            encoded = try ContentsCodec.encode(contents)
        } catch {
            throw InvariantViolation("contents read from a version \(version) body cannot be written: \(error)")
        }
        try require(encoded.version == (contents.fitsVersion1 ? 1 : 2), "contents encode as version \(encoded.version)")
        try require(encoded.body.count % ItemCodec.padding == 0, "an encoded body is not padded to \(ItemCodec.padding) bytes")
        if exact && encoded.version == version {
            try require(encoded.body == body, "a body vault wrote re-encodes to other bytes")
        }
        let again: VaultContents
        do throws(VaultError) {
            again = try ContentsCodec.decode(encoded.body, version: encoded.version)
        } catch {
            throw InvariantViolation("a body vault encoded does not read back: \(error)")
        }
        try require(again == contents, "a re-encoded body reads back to other contents")
        let twice: [UInt8]
        do throws(VaultError) {
            twice = try ContentsCodec.encode(again).body
        } catch {
            throw InvariantViolation("contents read back cannot be written again: \(error)")
        }
        try require(twice == encoded.body, "encoding is not a fixed point: the second encoding differs from the first")
    }
}
