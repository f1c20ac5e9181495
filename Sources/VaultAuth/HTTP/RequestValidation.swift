// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import HTTPTypes
import VaultStore

extension HTTPRequest {
    /// Headers a caller may not set on a request that carries the account's token:
    /// `Authorization` (the Requester's), and those that decide where and how the request
    /// travels (`Host` would route the token to another virtual host behind a shared
    /// proxy; the framing headers could smuggle a second request).
    static let reservedHeaders: Set<HTTPField.Name> = [
        .authorization, .proxyAuthorization, HTTPField.Name("Host")!, .contentLength, .transferEncoding, .connection,
        HTTPField.Name("Keep-Alive")!, HTTPField.Name("Proxy-Connection")!, .te, HTTPField.Name("Trailer")!, .upgrade,
    ]

    /// Throws `.invalidRequest` unless the method is an HTTP token, no header is reserved,
    /// and no header value holds a control character (tab excepted). swift-http-types makes
    /// names tokens and turns line breaks into spaces; the rest is vault's policy. The
    /// message names the header, never its value.
    func validateForSending() throws(AuthError) {
        guard (1...32).contains(method.rawValue.utf8.count), method.rawValue.utf8.allSatisfy(HTTPToken.isTokenByte) else {
            throw .invalidRequest("the method must be a plain HTTP method such as GET or POST")
        }
        for field in headerFields {
            guard !Self.reservedHeaders.contains(field.name) else {
                throw .invalidRequest("vault sets the \(field.name.rawName) header itself")
            }
            guard !HTTPToken.hasControlCharacter(field.value) else {
                throw .invalidRequest("the value of the header \(field.name.rawName) holds a line break or a control character")
            }
        }
    }
}

extension HTTPFields {
    /// The fields of `pairs` as a user wrote them (`vault request -H`), refused rather than
    /// mended: swift-http-types would turn a line break in a value into a space and send
    /// it, where the user meant something else. Throws `.invalidRequest` for a name that is
    /// not a token, a reserved header (``HTTPRequest`` carries the account's token and its
    /// framing), or a value with a control character (tab excepted); the message names the
    /// header, never its value.
    public init(validating pairs: [(name: String, value: String)]) throws(AuthError) {
        self.init()
        for (name, value) in pairs {
            guard !name.isEmpty, name.utf8.count <= 256, name.utf8.allSatisfy(HTTPToken.isTokenByte), let fieldName = HTTPField.Name(name)
            else {
                throw .invalidRequest("a header name must be a plain token, such as X-Request-Id")
            }
            guard !HTTPRequest.reservedHeaders.contains(fieldName) else { throw .invalidRequest("vault sets the \(name) header itself") }
            guard !HTTPToken.hasControlCharacter(value) else {
                throw .invalidRequest("the value of the header \(name) holds a line break or a control character")
            }
            append(HTTPField(name: fieldName, value: value))
        }
    }
}

/// RFC 9110's lexical rules that vault checks itself.
enum HTTPToken {
    /// `tchar`: letters, digits and ``!#$%&'*+-.^_`|~``.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// True when `value` holds a control character other than tab, or DEL.
    static func hasControlCharacter(_ value: String) -> Bool {
        value.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }
    }
}
