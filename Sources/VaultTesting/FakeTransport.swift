// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import VaultAuth

/// An ``HTTPTransport`` that answers from a closure and records every request, so a test
/// plays the server (a 401 for a revoked token, a slow answer) without a socket.
public final class FakeTransport: HTTPTransport {
    /// One request as the transport got it: the head and the body.
    public struct Sent: Sendable {
        /// The request head.
        public let request: HTTPRequest
        /// The body, or nil for none.
        public let body: [UInt8]?

        /// A request as sent: `request` with `body`.
        public init(request: HTTPRequest, body: [UInt8]?) {
            self.request = request
            self.body = body
        }

        /// The request's URL (`about:blank` for a request without an absolute one, which
        /// VaultAuth never sends).
        public var url: URL { request.url ?? URL(string: "about:blank")! }
        /// The method, as sent (`GET`, `POST`).
        public var method: String { request.method.rawValue }

        /// The value of header `name` (case-insensitive), or nil.
        public func header(_ name: String) -> String? {
            HTTPField.Name(name).flatMap { request.headerFields[$0] }
        }
    }

    /// What the fake server answers: a response head and its body.
    public struct Reply: Sendable {
        /// The response head.
        public var response: HTTPResponse
        /// The whole body.
        public var body: [UInt8]

        /// A reply with `status`, the header fields `headers` in order, and `body`.
        public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
            self.response = HTTPResponse(status: .init(code: status), headerFields: FakeTransport.fields(headers))
            self.body = body
        }
    }

    /// Answers one request.
    public typealias Handler = @Sendable (Sent) async -> Reply
    /// Every request sent, in order.
    public let requests = Recorder<Sent>()
    private let handler: Handler

    /// A transport answering each request with `handler`.
    public init(_ handler: @escaping Handler) { self.handler = handler }

    /// The fields `pairs`, in order, each name a token (a test's own: nothing is refused).
    public static func fields(_ pairs: [(name: String, value: String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return fields
    }

    /// The bearer token of each request sent, in order (nil for a request without one).
    public var bearers: [String?] { requests.all.map(Self.bearer(of:)) }

    /// The token of `sent`'s `Authorization: Bearer` header, or nil.
    public static func bearer(of sent: Sent) -> String? {
        guard let value = sent.header("Authorization"), value.hasPrefix("Bearer ") else { return nil }
        return String(value.dropFirst("Bearer ".count))
    }

    /// Records the request and answers it with the handler; never throws.
    public func send(_ request: HTTPRequest, body: [UInt8]?, timeout: Duration) async throws(AuthError) -> (response: HTTPResponse, body: [UInt8]) {
        let sent = Sent(request: request, body: body)
        requests.append(sent)
        let reply = await handler(sent)
        return (reply.response, reply.body)
    }
}
