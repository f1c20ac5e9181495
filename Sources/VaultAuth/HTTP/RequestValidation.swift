// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

extension HTTPRequest {
    /// Headers a caller may not set on a request that carries the account's token:
    /// `Authorization` (the Requester's), and those that decide where and how the request
    /// travels (`Host` would route the token to another virtual host behind a shared
    /// proxy; the framing headers could smuggle a second request).
    static let reservedHeaders: Set<String> = [
        "authorization", "proxy-authorization", "host", "content-length", "transfer-encoding", "connection",
        "keep-alive", "proxy-connection", "te", "trailer", "upgrade",
    ]

    /// Throws `.invalidRequest` unless the method is an HTTP token, every header name is a
    /// token and not reserved, and no header value holds a line break or another control
    /// character (tab excepted). The message names the header, never its value.
    func validateForSending() throws(AuthError) {
        guard (1...32).contains(method.utf8.count), method.utf8.allSatisfy(Self.isTokenByte) else {
            throw .invalidRequest("the method must be a plain HTTP method such as GET or POST")
        }
        for header in headers {
            guard !header.name.isEmpty, header.name.utf8.count <= 256, header.name.utf8.allSatisfy(Self.isTokenByte) else {
                throw .invalidRequest("a header name must be a plain token, such as X-Request-Id")
            }
            guard !Self.reservedHeaders.contains(header.name.lowercased()) else {
                throw .invalidRequest("vault sets the \(header.name) header itself")
            }
            guard !header.value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else {
                throw .invalidRequest("the value of the header \(header.name) holds a line break or a control character")
            }
        }
    }

    /// RFC 9110 `tchar`: letters, digits and ``!#$%&'*+-.^_`|~``.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
