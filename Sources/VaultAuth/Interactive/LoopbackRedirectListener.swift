// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import VaultStore

/// What the browser brought back to the loopback redirect URI.
public enum AuthorizationCallback: Sendable, Equatable {
    /// The authorization code.
    case code(String)
    /// The provider's `error` and `error_description` (RFC 6749 §4.1.2.1), as sent.
    case error(code: String, description: String?)
}

/// The loopback redirect listener of a native app (RFC 8252 §7.3): an HTTP server on
/// `127.0.0.1` at a port the system picks, answering only `GET /callback`.
///
/// It accepts one redirect: the right path, the `Host` it listens on, and the `state` of
/// the request. Anything else (another path, a wrong or missing `state`, a second redirect
/// after the first) is answered with a short error page and ignored. The accepted redirect
/// gets a page saying the sign-in finished and the tab can be closed. ``close()`` stops
/// listening; nothing listens after it.
public final class LoopbackRedirectListener: Sendable {
    /// The port it listens on.
    public let port: Int
    private let channel: any Channel
    private let inbox: CallbackInbox

    /// `http://127.0.0.1:PORT/callback`.
    public var redirectURI: String { "http://127.0.0.1:\(port)/callback" }

    private init(port: Int, channel: any Channel, inbox: CallbackInbox) {
        self.port = port
        self.channel = channel
        self.inbox = inbox
    }

    /// Starts listening for the redirect that carries `state`; `.network` when no port can be bound.
    public static func start(state: String) async throws(AuthError) -> LoopbackRedirectListener {
        let inbox = CallbackInbox(state: state)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(CallbackHandler(inbox: inbox))
                }
            }
        do {
            let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
            guard let port = channel.localAddress?.port else {
                try? await channel.close()
                throw AuthError.network("the loopback listener has no port")
            }
            inbox.setPort(port)
            return LoopbackRedirectListener(port: port, channel: channel, inbox: inbox)
        } catch let error as AuthError {
            throw error
        } catch {
            throw .network("cannot listen on 127.0.0.1 for the sign-in redirect: \(TextEscaping.escaped(String(describing: error)))")
        }
    }

    /// Waits for the accepted redirect, at most `timeout`; `.authentication` when the time runs out.
    public func callback(timeout: Duration) async throws(AuthError) -> AuthorizationCallback {
        let inbox = self.inbox
        let loop = channel.eventLoop
        return try await withDeadline(
            timeout,
            schedule: { after, fire in
                let task = loop.scheduleTask(in: TimeAmount(after), fire)
                return { task.cancel() }
            },
            expired: { .authentication("no sign-in arrived within \(timeout); run vault login again") }
        ) { () async throws(AuthError) -> AuthorizationCallback in
            await inbox.next()
        }
    }

    /// Stops listening (open connections are closed too).
    public func close() async {
        inbox.close()
        try? await channel.close()
    }
}

/// The state shared by the listener's connections: the expected `state`, whether a redirect
/// was accepted, and the waiter.
final class CallbackInbox: Sendable {
    private struct State {
        var port = 0
        var result: AuthorizationCallback?
        var closed = false
        var released = false
        var waiter: CheckedContinuation<AuthorizationCallback, Never>?
    }

    let expectedState: String
    private let state = Mutex(State())

    init(state: String) { expectedState = state }

    func setPort(_ port: Int) { state.withLock { $0.port = port } }

    var port: Int { state.withLock { $0.port } }

    /// Takes `result` when none was taken yet and the listener is open; true when it was.
    /// The waiter learns of it only at ``release()``, once the browser has its page: vault
    /// may exit right after, and the page must not be cut off.
    func accept(_ result: AuthorizationCallback) -> Bool {
        state.withLock { state in
            guard state.result == nil, !state.closed else { return false }
            state.result = result
            return true
        }
    }

    /// Hands the accepted result to the waiter (if it waits already; else ``next()`` finds it).
    func release() {
        let (waiter, result) = state.withLock { state in
            defer { state.waiter = nil }
            state.released = state.result != nil
            return (state.waiter, state.result)
        }
        if let waiter, let result { waiter.resume(returning: result) }
    }

    func close() { state.withLock { $0.closed = true } }

    func next() async -> AuthorizationCallback {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> AuthorizationCallback? in
                if let result = state.result, state.released { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// Answers one HTTP request on a connection of the listener, then closes it.
private final class CallbackHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let inbox: CallbackInbox
    private var head: HTTPRequestHead?

    init(inbox: CallbackInbox) { self.inbox = inbox }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            let (status, title, message, accepted) = answer(head)
            let inbox = self.inbox
            respond(context: context, status: status, title: title, message: message) {
                if accepted { inbox.release() }
            }
        }
    }

    /// The page for `head`, taking the redirect when it is the right one.
    private func answer(_ head: HTTPRequestHead) -> (HTTPResponseStatus, String, String, accepted: Bool) {
        let components = URLComponents(string: head.uri)
        guard head.method == .GET, let components, components.path == "/callback" else {
            return (.notFound, "Not found", "vault listens here only for its sign-in redirect.", false)
        }
        guard head.headers["Host"] == ["127.0.0.1:\(inbox.port)"] else {
            return (.badRequest, "Refused", "This request was not sent to vault's own address; it was ignored.", false)
        }
        var query: [String: String] = [:]
        var repeated = false
        for (name, value) in Self.formFields(components.percentEncodedQuery ?? "") {
            if query[name] != nil { repeated = true }
            query[name] = value
        }
        guard !repeated, let state = query["state"], Self.constantTimeEqual(state, inbox.expectedState) else {
            return (.badRequest, "Refused", "This sign-in response does not belong to the running vault login; it was ignored.", false)
        }
        let callback: AuthorizationCallback
        if let error = query["error"] {
            callback = .error(code: error, description: query["error_description"])
        } else if let code = query["code"], !code.isEmpty {
            callback = .code(code)
        } else {
            return (.badRequest, "Refused", "The response has neither a code nor an error; it was ignored.", false)
        }
        guard inbox.accept(callback) else {
            return (.badRequest, "Already used", "This sign-in was already completed or given up; it was ignored.", false)
        }
        if case .error = callback {
            return (.ok, "Sign-in not completed", "The provider did not sign you in. You can close this tab; vault says why.", true)
        }
        return (.ok, "Signed in", "The sign-in finished. You can close this tab and return to the terminal.", true)
    }

    /// Writes the page and closes the connection; `written` runs once the page is out (or failed).
    private func respond(
        context: ChannelHandlerContext, status: HTTPResponseStatus, title: String, message: String,
        written: @escaping @Sendable () -> Void
    ) {
        let html = """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title>vault: \(title)</title></head>
            <body><h1>vault: \(title)</h1><p>\(message)</p></body></html>

            """
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: String(html.utf8.count))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: html)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            written()
            channel.close(promise: nil)
        }
    }

    /// The fields of an `application/x-www-form-urlencoded` query (RFC 6749 appendix B: `+` is
    /// a space); a field that does not decode is kept as it came.
    static func formFields(_ query: String) -> [(String, String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// Compares without stopping at the first difference.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
