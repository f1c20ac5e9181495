// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAuth

/// An ``HTTPTransport`` that answers from a closure and records every request, so a test
/// plays the server (a 401 for a revoked token, a slow answer) without a socket.
public final class FakeTransport: HTTPTransport {
    /// Answers one request.
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse
    /// Every request sent, in order.
    public let requests = Recorder<HTTPRequest>()
    private let handler: Handler

    /// A transport answering each request with `handler`.
    public init(_ handler: @escaping Handler) { self.handler = handler }

    /// The bearer token of each request sent, in order (nil for a request without one).
    public var bearers: [String?] { requests.all.map(Self.bearer(of:)) }

    /// The token of `request`'s `Authorization: Bearer` header, or nil.
    public static func bearer(of request: HTTPRequest) -> String? {
        guard let value = request.header("Authorization"), value.hasPrefix("Bearer ") else { return nil }
        return String(value.dropFirst("Bearer ".count))
    }

    /// Records `request` and answers it with the handler; never throws.
    public func send(_ request: HTTPRequest, timeout: Duration) async throws(AuthError) -> HTTPResponse {
        requests.append(request)
        return await handler(request)
    }
}
