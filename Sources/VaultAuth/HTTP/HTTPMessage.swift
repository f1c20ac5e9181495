// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import HTTPTypes

/// Sends one HTTP request and returns the response; the only way VaultAuth reaches the
/// network, so a test can put a fake one in its place to pin down a state machine.
///
/// Requests and responses are swift-http-types' `HTTPRequest` and `HTTPResponse`, the
/// heads only; a body travels beside its head, whole (VaultAuth's messages are small:
/// token answers, discovery documents, API replies bounded by the transport's limit).
///
/// Contract: any status is a response, not an error; failures to connect, timeouts and
/// oversized bodies throw `AuthError.network`; a URL that policy forbids throws
/// `AuthError.invalidRequest`. A transport never follows redirects: the ``Requester``
/// does, by ``RedirectRule``.
public protocol HTTPTransport: Sendable {
    /// Sends `request` with `body` (nil: none) once and returns the response and its whole
    /// body, whatever the status; `timeout` bounds the whole exchange. Throws as the
    /// contract above says.
    func send(_ request: HTTPRequest, body: [UInt8]?, timeout: Duration) async throws(AuthError) -> (response: HTTPResponse, body: [UInt8])
}

extension HTTPTransport {
    /// Sends `request` without a body.
    public func send(_ request: HTTPRequest, timeout: Duration) async throws(AuthError) -> (response: HTTPResponse, body: [UInt8]) {
        try await send(request, body: nil, timeout: timeout)
    }
}
