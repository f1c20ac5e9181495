// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import VaultAuth
import VaultStore
import VaultSync

/// `HTTPTransport` on AsyncHTTPClient: one exchange per call.
///
/// - Refuses plain http except to loopback, and URLs with user info (`URLPolicy`).
/// - Never follows redirects (the client's redirect handling is off): a 3xx comes back
///   as a response, and only the `Requester` decides whether to follow it.
/// - One deadline covers the whole exchange, the response body included: a server that
///   sends a head and then stalls makes the call fail with `.network` when the timeout
///   runs out. (AsyncHTTPClient's own deadline stops at the response head.)
/// - Reads at most `maximumBodySize` bytes of a response body; more is `.network`.
public final class AsyncHTTPTransport: HTTPTransport {
    private let client: HTTPClient
    private let ownsClient: Bool
    /// The deadlines of this transport's exchanges, on one event-loop timer.
    private let deadlines: DeadlineTimer
    /// The largest response body read, in bytes (default 16 MiB); a larger one fails with ``AuthError/network(_:)``.
    public let maximumBodySize: Int

    /// Uses `client` (whose redirect configuration must be `.disallow`), or makes one on
    /// the shared event loop group; call `shutdown()` when done with a made one. A made
    /// one gives up a connection attempt (TCP and TLS handshake) after `connectTimeout`
    /// (default 10 s): a command passes its request timeout, so a server that accepts and
    /// never completes the handshake cannot hold the client (and its shutdown) longer.
    public init(client: HTTPClient? = nil, maximumBodySize: Int = 16 << 20, connectTimeout: Duration? = nil) {
        if let client {
            self.client = client
            self.ownsClient = false
        } else {
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            configuration.httpVersion = .http1Only
            // A refused connection fails the request at once: with retries on, the pool
            // would try again with back-off until the connect timeout (10 s) and then
            // report the refusal, after ten silent seconds.
            configuration.connectionPool.retryConnectionEstablishment = false
            if let connectTimeout, connectTimeout > .zero {
                configuration.timeout.connect = TimeAmount(min(connectTimeout, .seconds(10)))
            }
            self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            self.ownsClient = true
        }
        self.maximumBodySize = maximumBodySize
        self.deadlines = DeadlineTimer(loop: self.client.eventLoopGroup.next())
    }

    /// Shuts the client down if this transport made it.
    public func shutdown() async {
        if ownsClient { try? await client.shutdown() }
    }

    /// Starts ``shutdown()`` and waits for it at most `limit`: a shutdown waits for every
    /// connection attempt under way, and a command whose deadline has passed must not wait
    /// for one more. The client lives on until its shutdown ends (or the process exits).
    public func shutdown(waitingAtMost limit: Duration) async {
        let gate = ResumeOnce()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            gate.set(continuation)
            Task {
                await self.shutdown()
                gate.resume()
            }
            Task {
                try? await Task.sleep(for: limit)
                gate.resume()
            }
        }
    }

    /// Checks ``URLPolicy`` first, never follows a redirect, and fails with ``AuthError/network(_:)`` when
    /// `timeout` runs out before the whole body has arrived. See ``HTTPTransport/send(_:body:timeout:)``.
    public func send(
        _ request: HTTPRequest, body: [UInt8]?, timeout: Duration
    ) async throws(AuthError) -> (response: HTTPResponse, body: [UInt8]) {
        guard let url = request.url else { throw .invalidRequest("the request has no absolute http(s) URL") }
        try URLPolicy.check(url)
        let client = self.client
        let limit = maximumBodySize
        let deadlines = self.deadlines
        let schedule = { (after: Duration, fire: @escaping @Sendable () -> Void) -> (@Sendable () -> Void) in
            deadlines.schedule(after: after, fire)
        }
        return try await withDeadline(
            timeout, schedule: schedule,
            expired: { .network("\(TextEscaping.escaped(url.host ?? "the server")) did not answer within \(timeout.worded)") }
        ) { () async throws(AuthError) -> (response: HTTPResponse, body: [UInt8]) in
            try await Self.exchange(request, url: url, body: body, client: client, timeout: timeout, maximumBodySize: limit)
        }
    }

    private static func exchange(
        _ request: HTTPRequest, url: URL, body: [UInt8]?, client: HTTPClient, timeout: Duration, maximumBodySize: Int
    ) async throws(AuthError) -> (response: HTTPResponse, body: [UInt8]) {
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headerFields { outgoing.headers.add(name: field.name.rawName, value: field.value) }
        if let body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        var host: String { TextEscaping.escaped(url.host ?? "the server") }  // for errors only
        do {
            let response = try await client.execute(outgoing, timeout: TimeAmount(timeout))
            let received = try await response.body.collect(upTo: maximumBodySize)
            // NIO's parser reads three digits and names that are tokens; anything else is no HTTP.
            guard response.status.code <= 999 else { throw AuthError.network("\(host) answered with the status \(response.status.code)") }
            var fields = HTTPFields()
            for (name, value) in response.headers {
                guard let fieldName = HTTPField.Name(name) else { continue }
                fields.append(HTTPField(name: fieldName, value: value))
            }
            let head = HTTPResponse(status: .init(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase), headerFields: fields)
            return (head, Array(buffer: received))
        } catch let error as AuthError {
            throw error
        } catch is NIOTooManyBytesError {
            throw .network("the response from \(host) is larger than \(maximumBodySize) bytes")
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw .network("\(host) did not answer within \(timeout.worded)")
        } catch {
            let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
            if let failure = ConnectionFailure.message(for: error, host: url.host ?? "the server", port: port) {
                throw .network(TextEscaping.escaped(failure))
            }
            throw .network("\(request.method.rawValue) \(URLPolicy.redacted(url)): \(Self.describe(error))")
        }
    }

    /// An error's text for a message, without a library's type name. AsyncHTTPClient's
    /// header-validation errors carry the refused header values, which may be a token:
    /// those are never shown.
    static func describe(_ error: any Error) -> String {
        let text = ConnectionFailure.withoutTypeName(String(describing: error))
        if text.contains("invalidHeaderField") {
            return "a request header has characters HTTP does not allow (its value is not shown)"
        }
        return TextEscaping.escaped(text)
    }
}

/// Resumes a continuation once, whichever of several callers comes first.
private final class ResumeOnce: Sendable {
    private let continuation = Locked<CheckedContinuation<Void, Never>?>(nil)

    func set(_ waiting: CheckedContinuation<Void, Never>) { continuation.withLock { $0 = waiting } }

    func resume() { continuation.withLock { $0.take() }?.resume() }
}
