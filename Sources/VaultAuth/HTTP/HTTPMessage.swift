// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// An HTTP request as VaultAuth sends it: small, `Sendable`, transport-neutral.
public struct HTTPRequest: Sendable {
    /// The HTTP method (default `GET`); ``Requester/send(_:)`` refuses one that is not a plain HTTP token.
    public var method: String
    /// The absolute URL to send to; its ``Origin`` decides whether the account's token may go with it.
    public var url: URL
    /// The header fields in order; names compare case-insensitively (``header(_:)``, ``setting(_:to:)``).
    public var headers: [(name: String, value: String)]
    /// The request body, or nil for none.
    public var body: [UInt8]?

    /// Creates a request; by default a `GET` with no headers and no body. Nothing is validated here.
    public init(method: String = "GET", url: URL, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { HTTPFieldName.same($0.name, name) }?.value
    }

    /// This request with header `name` set to `value` (replacing any other value).
    public func setting(_ name: String, to value: String?) -> HTTPRequest {
        var copy = self
        copy.headers.removeAll { HTTPFieldName.same($0.name, name) }
        if let value { copy.headers.append((name, value)) }
        return copy
    }
}

/// An HTTP response with its whole body (bounded by the transport's size limit).
public struct HTTPResponse: Sendable {
    /// The status code; every status is a response, never an error of the transport.
    public var status: Int
    /// The header fields in the order received.
    public var headers: [(name: String, value: String)]
    /// The whole body, at most the transport's limit (`AsyncHTTPTransport.maximumBodySize` in VaultHTTPClient).
    public var body: [UInt8]

    /// Creates a response (transports and test fakes do); by default without headers or body.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive), or nil when there is none.
    public func header(_ name: String) -> String? {
        headers.first { HTTPFieldName.same($0.name, name) }?.value
    }

    /// True for a 2xx status.
    public var isSuccess: Bool { (200..<300).contains(status) }
}

/// Sends one HTTP request and returns the response; the only way VaultAuth reaches the
/// network, so a test can put a fake one in its place to pin down a state machine.
///
/// Contract: any status is a response, not an error; failures to connect, timeouts and
/// oversized bodies throw `AuthError.network`; a URL that policy forbids throws
/// `AuthError.invalidRequest`. Redirects are followed only within the same origin
/// with `Authorization`; a cross-origin redirect drops it.
public protocol HTTPTransport: Sendable {
    /// Sends `request` once and returns the response, whatever its status; `timeout` bounds the whole
    /// exchange. Throws as the contract above says.
    func send(_ request: HTTPRequest, timeout: Duration) async throws(AuthError) -> HTTPResponse
}

/// How HTTP compares field names: ASCII letters without regard to case, every other byte
/// as it is (RFC 9110 §5.1; a name is a token, so nothing else needs folding).
enum HTTPFieldName {
    static func same(_ a: String, _ b: String) -> Bool {
        let (x, y) = (a.utf8, b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).allSatisfy { lower($0) == lower($1) }
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
