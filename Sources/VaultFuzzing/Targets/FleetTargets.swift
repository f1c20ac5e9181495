// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultEtcdFormat
import VaultStore

/// The fleet's records in etcd (``FleetFormat``, docs/fleet.md): the parameters record and
/// the sealed item values, read with fixed keys (``FleetSamples``).
enum FleetTargets {
    /// Invariants: a refusal is one of the documented errors; a record that parses has
    /// fields that re-encode to its signed bytes; and a record that verifies under a prefix
    /// is byte for byte the one the target signed for that prefix (the MAC binds every byte
    /// and the record's etcd key).
    static let parameters = FuzzTarget(
        name: "fleet-parameters",
        summary: "a fleet parameters record: refused as documented, or re-encodes; verifies only as the record signed for its key"
    ) { bytes throws(InvariantViolation) in
        guard let known = FleetSamples.shared else { throw InvariantViolation("the fixed fleet key could not be derived") }
        let parameters: FleetFormat.Parameters?
        do throws(VaultError) {
            parameters = try FleetFormat.parse(bytes)
        } catch {
            switch error {
            case .unsupportedFormat, .corrupted: parameters = nil
            default: throw InvariantViolation("a record was refused with an undocumented error: \(error)")
            }
        }
        if let parameters {
            let signed = FleetFormat.record(parameters, keys: known.keys, recordKey: "").prefix(FleetFormat.signedSize)
            try require(Array(signed) == Array(bytes.prefix(FleetFormat.signedSize)), "a parsed record re-encodes to other bytes")
        }
        for (recordKey, record) in known.records where FleetFormat.verify(bytes, keys: known.keys, recordKey: recordKey) {
            try require(bytes == record, "a record the target did not sign for \(recordKey) verifies")
        }
    }

    /// Invariants: a value that does not open is `.corrupted`; a value opens under an item
    /// key only if it is byte for byte one the target sealed for that key (not moved from
    /// another, not changed), and then holds exactly the credential that was sealed.
    static let envelope = FuzzTarget(
        name: "fleet-envelope",
        summary: "a sealed fleet item value: refused as corrupted, or one the target sealed for that key, holding what was sealed"
    ) { bytes throws(InvariantViolation) in
        guard let known = FleetSamples.shared else { throw InvariantViolation("the fixed fleet key could not be derived") }
        for itemKey in FleetSamples.itemKeys {
            let credential: Credential
            do throws(VaultError) {
                credential = try FleetFormat.open(bytes, keys: known.keys, itemKey: itemKey)
            } catch {
                guard case .corrupted = error else { throw InvariantViolation("a value was refused with an undocumented error: \(error)") }
                continue
            }
            guard let sealed = known.values.first(where: { $0.itemKey == itemKey && $0.value == bytes }) else {
                throw InvariantViolation("a value the target did not seal for \(itemKey) opened")
            }
            try require(credential == sealed.credential, "a sealed value opened to another credential")
            try require(credential.secret.bytes == sealed.credential.secret.bytes, "a sealed value opened to another secret")
        }
    }
}
