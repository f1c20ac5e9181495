// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// The vault files the `vault-file` target knows (docs/file-format.md): written once,
/// deterministically (fixed passphrase, salt and one fixed nonce per file, never used for
/// a real vault), under the lowest work factor a writer may use, so that no input costs
/// an scrypt. Their bytes are the target's seed corpus (`Tests/Fuzz/Corpus/vault-file`).
package struct VaultFileSamples: Sendable {
    /// One file the target wrote, with what it holds.
    package struct Sample: Sendable {
        package let name: String
        package let contents: VaultContents
        package let version: UInt16
        package let body: [UInt8]
        package let file: [UInt8]
    }

    package let header: VaultFileFormat.Header
    package let keys: VaultKeys
    package let samples: [Sample]

    /// The samples, or nil when the fixed key cannot be derived (then every input fails the
    /// target, loudly, instead of trapping).
    package static let shared: VaultFileSamples? = try? VaultFileSamples()

    private init() throws(VaultError) {
        header = VaultFileFormat.Header(
            kdf: KDFParameters(log2N: KDFParameters.minimumLog2N), salt: (0..<32).map { UInt8(0xA0 + $0) })
        keys = try header.kdf.deriveKeys(passphrase: Secret("fuzz target passphrase, not a real one"), salt: header.salt)
        var samples: [Sample] = []
        for (index, (name, contents)) in Self.contents.enumerated() {
            let (version, body) = try ContentsCodec.encode(contents)
            let file = try VaultFileFormat.seal(
                body, version: version, header: header, keys: keys, nonce: Array(repeating: UInt8(index + 1), count: 12))
            samples.append(Sample(name: name, contents: contents, version: version, body: body, file: file))
        }
        // Version 2 with both new sections empty: valid (docs: "Versions"), though vault
        // itself writes such contents as version 1.
        var writer = ByteWriter()
        ItemCodec.append(Self.credentials, to: &writer)
        writer.append(UInt32(0))
        writer.append(UInt32(0))
        ItemCodec.pad(&writer)
        let v2Empty = writer.bytes
        let file = try VaultFileFormat.seal(
            v2Empty, version: 2, header: header, keys: keys, nonce: Array(repeating: UInt8(samples.count + 1), count: 12))
        samples.append(
            Sample(name: "v2-empty-sections", contents: VaultContents(credentials: Self.credentials), version: 2, body: v2Empty, file: file))
        self.samples = samples
    }

    /// vault's own items in the samples: every kind, names beyond ASCII, an empty secret.
    package static let credentials: [CredentialKey: Credential] = {
        let items = [
            Credential(server: "https://git.example.com", account: "alice", secret: Secret("correct horse"), label: "Git: alice"),
            Credential(
                key: CredentialKey(server: "https://login.example.com", account: "bob", kind: .tokens),
                secret: Secret(#"{"access_token":"a","refresh_token":"r","expires_at":1800000000}"#)),
            Credential(
                key: CredentialKey(server: "https://login.example.com", account: "bob", kind: .settings),
                secret: Secret(#"{"client_id":"vault"}"#)),
            Credential(server: "smtp://mail.例え.jp", account: "ü@例え.jp", secret: Secret(bytes: [])),
        ]
        return Dictionary(uniqueKeysWithValues: items.map { ($0.key, $0) })
    }()

    static let serviceContents = VaultContents(
        credentials: credentials,
        collections: ["work_2": ServiceCollection(id: "work_2", label: "Work", created: 1_700_000_000, modified: 1_700_000_100)],
        items: [
            ServiceItem.Reference(collection: "login", id: "i1"): ServiceItem(
                reference: ServiceItem.Reference(collection: "login", id: "i1"), label: "Wi-Fi",
                attributes: ["xdg:schema": "org.gnome.keyring.NetworkPassword", "server": "router"], contentType: "text/plain",
                secret: Secret("hunter2"), created: 1_700_000_000, modified: 1_700_000_001),
            ServiceItem.Reference(collection: "work_2", id: "a_B_9"): ServiceItem(
                reference: ServiceItem.Reference(collection: "work_2", id: "a_B_9"), label: "",
                attributes: [:], contentType: "application/octet-stream", secret: Secret(bytes: [0, 1, 0xFF]),
                created: 0, modified: UInt64.max),
        ])

    /// The contents written through vault's own encoder (``ContentsCodec``), by name.
    static let contents: [(String, VaultContents)] = [
        ("v1-empty", VaultContents()),
        ("v1-items", VaultContents(credentials: credentials)),
        ("v2-service-items", serviceContents),
        (
            "v2-collection-only",
            VaultContents(collections: ["c": ServiceCollection(id: "c", label: "Ç", created: 1, modified: 2)])
        ),
    ]
}
