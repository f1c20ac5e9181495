// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultEtcdFormat

/// etcd's v3 JSON gateway answers (``EtcdWire``), decoded as ``EtcdClient`` decodes them: a
/// fresh `JSONDecoder` with its default settings, every call's answer wrapped in
/// `EtcdWire.Headed`, the authentication answer and the error body bare.
enum EtcdWireTargets {
    /// Invariants: no trap on any bytes, whichever shape they are read as; and every base64
    /// field vault reads (keys and values of a range, also inside a transaction's answers,
    /// and the lock's key) gives bytes that survive vault's own base64 encoding (what vault
    /// reads as a key is what it would send back as that key), or, where the text is not
    /// base64, the documented empty fallback.
    static let json = FuzzTarget(
        name: "etcd-json",
        summary: "an etcd v3 gateway answer as every shape vault reads: no trap; base64 keys and values round-trip"
    ) { bytes throws(InvariantViolation) in
        let data = Data(bytes)
        if let range = decode(EtcdWire.Headed<EtcdWire.RangeResponse>.self, data) {
            try requireRoundTrips(range.body.kvs ?? [])
        }
        if let txn = decode(EtcdWire.Headed<EtcdWire.TxnResponse>.self, data) {
            for op in txn.body.responses ?? [] { try requireRoundTrips(op.response_range?.kvs ?? []) }
            _ = Int64(txn.body.header?.revision ?? "0")
        }
        if let grant = decode(EtcdWire.Headed<EtcdWire.LeaseGrantResponse>.self, data) { _ = grant.body.ID.flatMap { Int64($0) } }
        if let keepAlive = decode(EtcdWire.Headed<EtcdWire.KeepAliveResponse>.self, data) {
            _ = keepAlive.body.result?.TTL.flatMap { Int($0) }
        }
        if let lock = decode(EtcdWire.Headed<EtcdWire.LockResponse>.self, data), let key = lock.body.key {
            try requireRoundTrip(key, as: "a lock key")
        }
        _ = decode(EtcdWire.Headed<EtcdWire.Empty>.self, data)
        _ = decode(EtcdWire.AuthenticateResponse.self, data)
        _ = decode(EtcdWire.ErrorBody.self, data)
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ data: Data) -> T? {
        try? JSONDecoder().decode(type, from: data)
    }

    private static func requireRoundTrips(_ kvs: [EtcdWire.KeyValue]) throws(InvariantViolation) {
        for kv in kvs {
            try requireRoundTrip(kv.key, as: "a key")
            try require(kv.keyBytes == Array(Data(base64Encoded: kv.key) ?? Data()), "a key's bytes are not its base64")
            if let value = kv.value {
                try requireRoundTrip(value, as: "a value")
                try require(kv.valueBytes == Array(Data(base64Encoded: value) ?? Data()), "a value's bytes are not its base64")
            } else {
                try require(kv.valueBytes == [], "an absent value is not empty")
            }
            _ = kv.modRevision
        }
    }

    /// The bytes of base64 `text` encode (`EtcdWire.base64`) to
    /// base64 that decodes to the same bytes.
    private static func requireRoundTrip(_ text: String, as what: String) throws(InvariantViolation) {
        guard let bytes = Data(base64Encoded: text) else { return }
        let encoded = EtcdWire.base64(Array(bytes))
        try require(Data(base64Encoded: encoded) == bytes, "\(what) does not survive base64 encoding")
        try require(EtcdWire.base64(Array(Data(base64Encoded: encoded) ?? Data())) == encoded, "base64 encoding is not stable")
    }
}
