// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The request bodies vault posts to etcd's v3 gateway, in its JSON field names. Keys are
/// base64 (``EtcdWire/base64(_:)-(String)``); 64-bit integers are decimal strings.
extension EtcdWire {
    /// `/v3/kv/range`: one key, or with `range_end` every key in `[key, range_end)`.
    package struct RangeRequest: Encodable, Sendable {
        var key: String
        var range_end: String?
        var limit: String?
        var keys_only: Bool?

        package init(key: String, rangeEnd: String? = nil, limit: Int? = nil, keysOnly: Bool? = nil) {
            self.key = key
            self.range_end = rangeEnd
            self.limit = limit.map(String.init)
            self.keys_only = keysOnly
        }
    }

    /// `/v3/kv/txn`: `success` when every `compare` holds, else `failure`.
    package struct TxnRequest: Encodable, Sendable {
        var compare: [Compare]
        var success: [RequestOp]
        var failure: [RequestOp]

        package init(compare: [Compare], success: [RequestOp], failure: [RequestOp]) {
            self.compare = compare
            self.success = success
            self.failure = failure
        }
    }

    /// A guard: the key was last written at `mod_revision` (0: it does not exist).
    package struct Compare: Encodable, Sendable {
        var key: String
        var target = "MOD"
        var result = "EQUAL"
        var mod_revision: String

        package init(key: String, modRevision: Int64) {
            self.key = key
            self.mod_revision = String(modRevision)
        }
    }

    /// One operation of a transaction: exactly one of its fields is set.
    package struct RequestOp: Encodable, Sendable {
        package struct Key: Encodable, Sendable {
            var key: String
            var value: String?
        }

        var requestPut: Key?
        var requestDeleteRange: Key?
        var requestRange: Key?

        package static func put(key: String, value: String) -> Self { Self(requestPut: Key(key: key, value: value)) }
        package static func delete(key: String) -> Self { Self(requestDeleteRange: Key(key: key)) }
        package static func range(key: String) -> Self { Self(requestRange: Key(key: key)) }
    }

    /// `/v3/lease/grant`.
    package struct LeaseGrantRequest: Encodable, Sendable {
        var TTL: String

        package init(ttl: Int) { TTL = String(ttl) }
    }

    /// `/v3/lease/keepalive` and `/v3/lease/revoke`.
    package struct LeaseRequest: Encodable, Sendable {
        var ID: String

        package init(lease: Int64) { ID = String(lease) }
    }

    /// `/v3/lock/lock`.
    package struct LockRequest: Encodable, Sendable {
        var name: String
        var lease: String

        package init(name: String, lease: Int64) {
            self.name = name
            self.lease = String(lease)
        }
    }

    /// `/v3/auth/authenticate`. Its password is in no description and no reflection (`dump`).
    package struct AuthenticateRequest: Encodable, Sendable, CustomStringConvertible, CustomReflectable {
        var name: String
        var password: String

        package init(name: String, password: String) {
            self.name = name
            self.password = password
        }

        package var description: String { "AuthenticateRequest(name: \(name), password: <redacted>)" }
        package var customMirror: Mirror { Mirror(self, children: ["name": name, "password": "<redacted>"]) }
    }
}
