// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// The JSON shapes of etcd's v3 gateway (`/v3/...`, etcd 3.4 and later) that vault uses.
/// Keys and values are base64; 64-bit integers are decimal strings.
enum EtcdWire {
    /// One key-value pair of a range answer.
    struct KeyValue: Decodable {
        var key: String
        var value: String?
        var mod_revision: String?
        var create_revision: String?
        var version: String?

        var keyBytes: [UInt8] { Array(Data(base64Encoded: key) ?? Data()) }
        var valueBytes: [UInt8]? { value.map { Array(Data(base64Encoded: $0) ?? Data()) } ?? [] }
        var modRevision: Int64 { Int64(mod_revision ?? "0") ?? 0 }
    }

    struct Header: Decodable {
        var revision: String?
        /// The cluster's id, the same from every member (a decimal string).
        var cluster_id: String?
    }

    /// An answer and its header, both decoded in one pass over the JSON: the header of
    /// every answer says which cluster answered. A header that cannot be read is nil.
    struct Headed<Body: Decodable>: Decodable {
        var header: Header?
        var body: Body

        private enum CodingKeys: String, CodingKey { case header }

        init(from decoder: any Decoder) throws {
            header = try? decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Header.self, forKey: .header)
            body = try Body(from: decoder)
        }
    }

    struct RangeResponse: Decodable {
        var header: Header?
        var kvs: [KeyValue]?
        var more: Bool?
    }

    struct ResponseOp: Decodable {
        var response_range: RangeResponse?
    }

    struct TxnResponse: Decodable {
        var header: Header?
        var succeeded: Bool?
        var responses: [ResponseOp]?
    }

    struct LeaseGrantResponse: Decodable {
        var ID: String?
        var TTL: String?
        var error: String?
    }

    struct KeepAliveResponse: Decodable {
        struct Result: Decodable {
            var ID: String?
            var TTL: String?
        }
        var result: Result?
    }

    struct LockResponse: Decodable {
        var key: String?
    }

    struct AuthenticateResponse: Decodable {
        var token: String?
    }

    /// The gateway's error body: a gRPC status code and message.
    struct ErrorBody: Decodable {
        var error: String?
        var message: String?
        var code: Int?
    }

    struct Empty: Decodable {}

    static func base64(_ bytes: some Collection<UInt8>) -> String { Data(bytes).base64EncodedString() }
    static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    /// The end of the range of every key that starts with `prefix` (etcd's `--prefix`).
    static func prefixEnd(_ prefix: String) -> [UInt8] {
        var bytes = Array(prefix.utf8)
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return [0]
    }
}
