// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// The JSON shapes of etcd's v3 gateway (`/v3/...`, etcd 3.4 and later) that vault uses.
/// Keys and values are base64; 64-bit integers are decimal strings.
package enum EtcdWire {
    /// One key-value pair of a range answer.
    package struct KeyValue: Decodable {
        package var key: String
        package var value: String?
        package var mod_revision: String?
        package var create_revision: String?
        package var version: String?

        package var keyBytes: [UInt8] { Array(Data(base64Encoded: key) ?? Data()) }
        package var valueBytes: [UInt8]? { value.map { Array(Data(base64Encoded: $0) ?? Data()) } ?? [] }
        package var modRevision: Int64 { Int64(mod_revision ?? "0") ?? 0 }
    }

    package struct Header: Decodable {
        package var revision: String?
        /// The cluster's id, the same from every member (a decimal string).
        package var cluster_id: String?
    }

    /// An answer and its header, both decoded in one pass over the JSON: the header of
    /// every answer says which cluster answered. A header that cannot be read is nil.
    package struct Headed<Body: Decodable>: Decodable {
        package var header: Header?
        package var body: Body

        private enum CodingKeys: String, CodingKey { case header }

        package init(from decoder: any Decoder) throws {
            header = try? decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Header.self, forKey: .header)
            body = try Body(from: decoder)
        }
    }

    package struct RangeResponse: Decodable {
        package var header: Header?
        package var kvs: [KeyValue]?
        package var more: Bool?
    }

    package struct ResponseOp: Decodable {
        package var response_range: RangeResponse?
    }

    package struct TxnResponse: Decodable {
        package var header: Header?
        package var succeeded: Bool?
        package var responses: [ResponseOp]?
    }

    package struct LeaseGrantResponse: Decodable {
        package var ID: String?
        package var TTL: String?
        package var error: String?
    }

    package struct KeepAliveResponse: Decodable {
        package struct Result: Decodable {
            package var ID: String?
            package var TTL: String?
        }
        package var result: Result?
    }

    package struct LockResponse: Decodable {
        package var key: String?
    }

    package struct AuthenticateResponse: Decodable {
        package var token: String?
    }

    /// The gateway's error body: a gRPC status code and message.
    package struct ErrorBody: Decodable {
        package var error: String?
        package var message: String?
        package var code: Int?
    }

    package struct Empty: Decodable {}

    package static func base64(_ bytes: some Collection<UInt8>) -> String { Data(bytes).base64EncodedString() }
    package static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    /// The end of the range of every key that starts with `prefix` (etcd's `--prefix`).
    package static func prefixEnd(_ prefix: String) -> [UInt8] {
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
