// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultEtcdFormat
import VaultStore

/// A key's value and the revision it was last written at.
struct EtcdEntry: Sendable, Equatable {
    var key: [UInt8]
    var value: [UInt8]
    var modRevision: Int64
}

/// The etcd operations vault needs, each one call of ``EtcdClient/call(_:_:as:overall:attemptTimeout:)``.
extension EtcdClient {
    /// The entry at `key`, or nil (a linearizable read).
    func get(_ key: String) throws(VaultError) -> EtcdEntry? {
        let answer = try call("/v3/kv/range", EtcdWire.RangeRequest(key: EtcdWire.base64(key)), as: EtcdWire.RangeResponse.self)
        return answer.kvs?.first.map(Self.entry)
    }

    /// Every entry whose key starts with `prefix`, at most `limit` of them (more is an error:
    /// vault never keeps that many).
    func list(prefix: String, limit: Int = 100_000, keysOnly: Bool = false) throws(VaultError) -> [EtcdEntry] {
        let request = EtcdWire.RangeRequest(
            key: EtcdWire.base64(prefix), rangeEnd: EtcdWire.base64(EtcdWire.prefixEnd(prefix)), limit: limit, keysOnly: keysOnly)
        let answer = try call("/v3/kv/range", request, as: EtcdWire.RangeResponse.self)
        if answer.more == true, limit == 100_000 { throw .backendUnavailable("more than \(limit) keys under \(prefix) in etcd") }
        return (answer.kvs ?? []).map(Self.entry)
    }

    /// One write of a guarded transaction.
    enum Write {
        case put(String, [UInt8])
        case delete(String)
    }

    /// What a guarded write did.
    enum GuardedWrite: Equatable {
        /// Written, at this revision of the store.
        case written(revision: Int64)
        /// A guard did not hold: nothing was written. The entries at the guard keys now, in
        /// the guards' order (nil where a key does not exist).
        case conflict([EtcdEntry?])
    }

    /// Does `write` in one transaction, only if each guard key was last written at its
    /// revision (0: the key does not exist).
    func write(_ write: Write, guards: [(key: String, revision: Int64)]) throws(VaultError) -> GuardedWrite {
        let operation: EtcdWire.RequestOp =
            switch write {
            case .put(let key, let value): .put(key: EtcdWire.base64(key), value: EtcdWire.base64(value))
            case .delete(let key): .delete(key: EtcdWire.base64(key))
            }
        let request = EtcdWire.TxnRequest(
            compare: guards.map { EtcdWire.Compare(key: EtcdWire.base64($0.key), modRevision: $0.revision) }, success: [operation],
            failure: guards.map { .range(key: EtcdWire.base64($0.key)) })
        let answer = try call("/v3/kv/txn", request, as: EtcdWire.TxnResponse.self)
        if answer.succeeded == true { return .written(revision: Int64(answer.header?.revision ?? "0") ?? 0) }
        let responses = answer.responses ?? []
        return .conflict(
            guards.indices.map { index in
                index < responses.count ? responses[index].response_range?.kvs?.first.map(Self.entry) : nil
            })
    }

    /// A lease of `ttl` seconds; its id.
    func grantLease(ttl: Int) throws(VaultError) -> Int64 {
        let answer = try call("/v3/lease/grant", EtcdWire.LeaseGrantRequest(ttl: ttl), as: EtcdWire.LeaseGrantResponse.self)
        guard let raw = answer.ID, let id = Int64(raw), id != 0 else {
            throw .backendUnavailable("etcd granted no lease\(answer.error.map { ": \($0)" } ?? "")")
        }
        return id
    }

    /// Renews the lease; its remaining TTL in seconds (0 or less: it has expired).
    func keepAlive(lease: Int64, overall: Duration? = nil) throws(VaultError) -> Int {
        let answer = try call("/v3/lease/keepalive", EtcdWire.LeaseRequest(lease: lease), as: EtcdWire.KeepAliveResponse.self, overall: overall)
        return answer.result?.TTL.flatMap { Int($0) } ?? 0
    }

    /// Ends the lease (and so deletes every key attached to it, a held lock among them).
    /// A lease already gone is not an error.
    func revoke(lease: Int64, overall: Duration? = nil) throws(VaultError) {
        do {
            _ = try call("/v3/lease/revoke", EtcdWire.LeaseRequest(lease: lease), as: EtcdWire.Empty.self, overall: overall)
        } catch .backendUnavailable(let why) where why.contains("lease not found") {
            return
        }
    }

    /// Waits, at most `timeout`, until the lock `name` is held under `lease`; the key that
    /// holds it. etcd's lock service: the waiters queue by revision.
    func lock(_ name: String, lease: Int64, timeout: Duration) throws(VaultError) -> [UInt8] {
        let answer = try call(
            "/v3/lock/lock", EtcdWire.LockRequest(name: EtcdWire.base64(name), lease: lease), as: EtcdWire.LockResponse.self,
            overall: timeout, attemptTimeout: timeout)
        guard let key = answer.key, let bytes = Data(base64Encoded: key), !bytes.isEmpty else {
            throw .backendUnavailable("etcd's lock service gave no key")
        }
        return Array(bytes)
    }

    private static func entry(_ kv: EtcdWire.KeyValue) -> EtcdEntry {
        EtcdEntry(key: kv.keyBytes, value: kv.valueBytes ?? [], modRevision: kv.modRevision)
    }
}
