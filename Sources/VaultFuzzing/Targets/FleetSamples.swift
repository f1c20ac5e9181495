// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultEtcdFormat
import VaultStore

/// The fleet records the fleet targets know: one fixed key (fixed passphrase and salt, the
/// lowest work factor a writer may use, derived once), the parameters record signed for two
/// prefixes, and credentials sealed for two item keys with fixed nonces (never used for a
/// real fleet). Their bytes are the targets' seed corpora.
package struct FleetSamples: Sendable {
    /// One value the target sealed.
    package struct Value: Sendable {
        package let name: String
        package let itemKey: String
        package let credential: Credential
        package let value: [UInt8]
    }

    /// The etcd keys of the two parameters records.
    static let recordKeys = ["/vault/params", "/vault-other/params"]
    /// Two item keys (of the shape vault uses: the prefix, `items/` and a hidden name).
    package static let itemKeys = [
        "/vault/items/" + String(repeating: "0a", count: 32), "/vault/items/" + String(repeating: "b7", count: 32),
    ]

    package let parameters: FleetFormat.Parameters
    package let keys: FleetFormat.Keys
    /// The parameters record, by its etcd key.
    package let records: [(recordKey: String, record: [UInt8])]
    package let values: [Value]

    package static let shared: FleetSamples? = try? FleetSamples()

    private init() throws(VaultError) {
        parameters = FleetFormat.Parameters(
            kdf: KDFParameters(log2N: KDFParameters.minimumLog2N), salt: (0..<32).map { UInt8(0xB0 + $0) })
        let master = try parameters.kdf.deriveKeys(passphrase: Secret("fleet fuzz passphrase, not a real one"), salt: parameters.salt)
            .master
        let keys = FleetFormat.Keys(master: master)
        self.keys = keys
        let parameters = parameters
        records = Self.recordKeys.map { ($0, FleetFormat.record(parameters, keys: keys, recordKey: $0)) }
        let credentials: [(String, Credential)] = [
            ("password", Credential(server: "https://git.example.com", account: "alice", secret: Secret("correct horse"))),
            (
                "tokens",
                Credential(
                    key: CredentialKey(server: "https://login.example.com", account: "bob", kind: .tokens),
                    secret: Secret(#"{"access_token":"a","refresh_token":"r"}"#), label: "vault tokens: bob")
            ),
            ("empty-secret", Credential(server: "smtp://mail.例え.jp", account: "ü", secret: Secret(bytes: []))),
        ]
        var values: [Value] = []
        for (keyIndex, itemKey) in Self.itemKeys.enumerated() {
            for (index, (name, credential)) in credentials.enumerated() {
                let nonce = Array(repeating: UInt8(16 * keyIndex + index + 1), count: 12)
                let value = try FleetFormat.seal(credential, keys: keys, itemKey: itemKey, nonce: nonce)
                values.append(Value(name: "\(name)-\(keyIndex)", itemKey: itemKey, credential: credential, value: value))
            }
        }
        self.values = values
    }
}
