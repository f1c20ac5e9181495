// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import VaultStore
import VaultSync

/// What the browser brought back to the loopback redirect URI.
public enum AuthorizationCallback: Sendable, Equatable {
    /// The authorization code.
    case code(String)
    /// The provider's `error` and `error_description` (RFC 6749 §4.1.2.1), as sent.
    case error(code: String, description: String?)
}

/// A connection the sign-in listener refused because it did not come from a process of
/// vault's own user.
public struct RefusedConnection: Sendable, Hashable, CustomStringConvertible {
    /// The uid owning the client's socket; nil when no owner could be found (no live
    /// socket, or the kernel could not be asked), which is refused too.
    public let uid: UInt32?
    /// Why the owner is unknown, when there is more to say than that no socket was found.
    public let reason: String?

    public init(uid: UInt32?, reason: String? = nil) {
        self.uid = uid
        self.reason = reason
    }

    /// `uid 4242`, or words saying the owner is unknown, and why.
    public var description: String {
        if let uid { return "uid \(uid)" }
        return "a process whose owner could not be determined" + (reason.map { ": \($0)" } ?? "")
    }
}

/// The loopback redirect listener of a native app (RFC 8252 §7.3): an HTTP server on
/// `127.0.0.1` at a port the system picks, or at exactly the host, port and path of a
/// ``LoopbackRedirect`` given (`--redirect-uri`), for the browser of vault's own user only: other
/// uids' connections (``LoopbackPeerOwner``) are closed unread and reported to `refused`. The
/// browser gets ``startURL``, a one-time link that redirects to the authorization URL and sets a
/// cookie, never that URL itself (other users can read argv); the redirect is taken once, only
/// with that cookie, `Host`, path and `state`, and a reused link or a missing cookie ends the
/// sign-in. ``close()`` stops listening. Each step: docs/tokens.md, "The sign-in listener".
public final class LoopbackRedirectListener: Sendable {
    /// The port it listens on.
    public let port: Int
    private let channel: any Channel
    /// The `::1` listener beside it for a `localhost` redirect URI, where this machine has one.
    private let companion: (any Channel)?
    private let inbox: CallbackInbox

    /// The redirect URI: as given, or `http://127.0.0.1:PORT/callback`.
    public var redirectURI: String { inbox.redirect.uri(boundPort: port) }

    /// The one-time link for the browser: `http://HOST:PORT/start/<token>`.
    public var startURL: URL { URL(string: inbox.redirect.origin(boundPort: port) + "/start/\(inbox.startToken)")! }

    private init(port: Int, channel: any Channel, companion: (any Channel)?, inbox: CallbackInbox) {
        self.companion = companion
        self.port = port
        self.channel = channel
        self.inbox = inbox
    }

    /// Starts listening at `redirect` for the redirect that carries `state`; the start link
    /// leads to `authorizationURL(redirectURI)`. `refused` hears of each owner whose
    /// connections are refused, once; the pages name the program as `names` says.
    /// `.unavailable` when the port of a given redirect URI is in use, `.network` when no
    /// port can be bound otherwise.
    public static func start(
        state: String, redirect: LoopbackRedirect = .anyPort, authorizationURL: @escaping @Sendable (_ redirectURI: String) -> URL,
        names: SignInPageNames = .neutral, refused: @escaping @Sendable (RefusedConnection) -> Void = { _ in }
    ) async throws(AuthError) -> LoopbackRedirectListener {
        try await start(
            state: state, redirect: redirect, authorizationURL: authorizationURL, names: names, refused: refused, owner: UInt32(geteuid()))
    }

    /// ``start(state:redirect:authorizationURL:names:refused:)`` serving the connections of
    /// `owner` (tests pass another uid to see their own connections refused).
    static func start(
        state: String, redirect: LoopbackRedirect = .anyPort, authorizationURL: @escaping @Sendable (_ redirectURI: String) -> URL,
        names: SignInPageNames = .neutral, refused: @escaping @Sendable (RefusedConnection) -> Void, owner: UInt32
    ) async throws(AuthError) -> LoopbackRedirectListener {
        let inbox = CallbackInbox(state: state, redirect: redirect, names: names, refused: refused)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 16)
            // A port whose earlier connections linger in TIME_WAIT can be listened on again
            // (never one another socket listens on: Linux refuses that with or without it).
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                // Before the connection is registered, so nothing of it is read until its owner is known.
                NIOThreadPool.singleton.runIfActive(eventLoop: channel.eventLoop) {
                    Self.owner(of: channel)
                }.flatMapThrowing { found in
                    guard found == .owner(owner) else {
                        if case .unknown(let reason) = found {
                            inbox.report(RefusedConnection(uid: nil, reason: reason))
                        } else {
                            inbox.report(RefusedConnection(uid: found.uid))
                        }
                        throw RefusedPeer()
                    }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(CallbackHandler(inbox: inbox))
                }
            }
        let address = redirect.bindAddress
        do {
            let channel = try await bootstrap.bind(host: address, port: redirect.port ?? 0).get()
            guard let port = channel.localAddress?.port else {
                try? await channel.close()
                throw AuthError.network("the loopback listener has no port")
            }
            // A browser may resolve localhost to ::1 first: that port is taken there too, so that
            // no other program can listen where the browser goes.
            var companion: (any Channel)?
            if redirect.host == .localhost {
                do {
                    companion = try await bootstrap.bind(host: "::1", port: port).get()
                } catch let error as IOError where error.errnoCode == EADDRINUSE {
                    try? await channel.close()
                    throw AuthError.unavailable(
                        "port \(port) of ::1 is in use by another program, and a browser may take localhost for ::1; free it and try again")
                } catch {
                    companion = nil  // no IPv6 loopback here: browsers reach 127.0.0.1
                }
            }
            inbox.setPort(port, authorizationURL: authorizationURL(redirect.uri(boundPort: port)))
            return LoopbackRedirectListener(port: port, channel: channel, companion: companion, inbox: inbox)
        } catch let error as AuthError {
            throw error
        } catch let error as IOError where error.errnoCode == EACCES && redirect.port != nil {
            throw .unavailable(
                "only root may listen on port \(redirect.port ?? 0) (below 1024), the port of the redirect URI \(redirect); "
                    + "register one with a higher port")
        } catch let error as IOError where error.errnoCode == EADDRINUSE && redirect.port != nil {
            throw .unavailable(
                "port \(redirect.port ?? 0) of \(address) is in use by another program, so the sign-in cannot listen at its redirect URI "
                    + "\(redirect); free it and try again")
        } catch {
            throw .network("cannot listen on \(address) for the sign-in redirect: \(TextEscaping.escaped(String(describing: error)))")
        }
    }

    /// The uid owning the client end of `channel`, a connection accepted on 127.0.0.1 or ::1; nil when unknown.
    private static func owner(of channel: any Channel) -> LoopbackPeerOwner.Lookup {
        guard let peerPort = channel.remoteAddress?.port, let localPort = channel.localAddress?.port else { return .unknown(reason: nil) }
        switch (channel.remoteAddress, channel.localAddress) {
        case (.v4(let peer)?, .v4(let local)?):
            return LoopbackPeerOwner.uid(
                client: (peer.address.sin_addr.s_addr, peerPort), server: (local.address.sin_addr.s_addr, localPort))
        case (.v6(let peer)?, .v6(let local)?):
            return LoopbackPeerOwner.uid(
                client: (LoopbackPeerOwner.bytes(of: peer.address.sin6_addr), peerPort),
                server: (LoopbackPeerOwner.bytes(of: local.address.sin6_addr), localPort))
        default:
            return .unknown(reason: nil)
        }
    }

    /// Waits for the accepted redirect, at most `timeout`; `.authentication` when the time runs
    /// out, or when another program used the start link or sent a redirect without its cookie.
    public func callback(timeout: Duration) async throws(AuthError) -> AuthorizationCallback {
        let inbox = self.inbox
        let loop = channel.eventLoop
        return try await withDeadline(
            timeout,
            schedule: { after, fire in
                let task = loop.scheduleTask(in: TimeAmount(after), fire)
                return { task.cancel() }
            },
            expired: { inbox.expired(after: timeout) }
        ) { () async throws(AuthError) -> AuthorizationCallback in
            switch await inbox.next() {
            case .callback(let callback): return callback
            case .linkReused: throw .authentication(Self.linkReused, remedy: .logInAgain)
            }
        }
    }

    /// Why a sign-in ended when its link was used twice or a redirect came without the cookie.
    static let linkReused =
        "another program used the sign-in link (it was opened a second time, or the redirect came without the browser's cookie); "
        + "nothing was stored"

    /// Stops listening (open connections are closed too).
    public func close() async {
        inbox.close()
        try? await channel.close()
        try? await companion?.close()
    }
}

/// A connection of another user (or of no known user): NIO closes it unread.
private struct RefusedPeer: Error {}

/// The state shared by the listener's connections: the expected `state`, the start link and
/// its cookie, whether the link was used and a result taken, and the waiter.
package final class CallbackInbox: Sendable {
    /// How the sign-in ended.
    package enum Outcome: Sendable, Equatable {
        /// The redirect was accepted.
        case callback(AuthorizationCallback)
        /// The start link was fetched twice, or a redirect came without the link's cookie.
        case linkReused
    }

    private struct State {
        var port = 0
        var authorizationURL: URL?
        var started = false
        var result: Outcome?
        var closed = false
        var released = false
        var waiter: CheckedContinuation<Outcome, Never>?
        var reported: Set<RefusedConnection> = []
    }

    let expectedState: String
    /// Where the redirect comes: its host, port and path.
    let redirect: LoopbackRedirect
    /// The random path segment of the start link.
    let startToken: String
    /// The cookie the start link sets and the redirect must bring back.
    let cookieValue: String
    /// How the pages name the program.
    let names: SignInPageNames
    private let refused: @Sendable (RefusedConnection) -> Void
    private let state = Locked(State())

    /// An inbox for the redirect carrying `state`; `startToken` and `cookieValue` are random
    /// unless given (the loopback-request fuzz target fixes them, to reach past the cookie).
    package init(
        state: String, redirect: LoopbackRedirect = .anyPort, names: SignInPageNames = .neutral,
        refused: @escaping @Sendable (RefusedConnection) -> Void = { _ in }, startToken: String? = nil, cookieValue: String? = nil
    ) {
        expectedState = state
        self.redirect = redirect
        self.startToken = startToken ?? AuthorizationSecrets.random()
        self.cookieValue = cookieValue ?? AuthorizationSecrets.random()
        self.names = names
        self.refused = refused
    }

    package func setPort(_ port: Int, authorizationURL: URL) {
        state.withLock {
            $0.port = port
            $0.authorizationURL = authorizationURL
        }
    }

    var port: Int { state.withLock { $0.port } }

    /// The cookie's name: one per listener port, so two sign-ins in one browser keep their own.
    var cookieName: String { "vault_signin_\(port)" }

    /// Tells `refused` of `connection`, the first time its owner is refused.
    func report(_ connection: RefusedConnection) {
        if state.withLock({ $0.reported.insert(connection).inserted }) { refused(connection) }
    }

    /// The authorization URL, the first time the start link is fetched while the listener is
    /// open and no result is taken; nil every other time.
    func claimStart() -> URL? {
        state.withLock { state in
            guard !state.started, state.result == nil, !state.closed else { return nil }
            state.started = true
            return state.authorizationURL
        }
    }

    /// Takes `result` when none was taken yet and the listener is open; true when it was.
    /// The waiter learns of it only at ``release()``, once the browser has its page: vault
    /// may exit right after, and the page must not be cut off.
    func accept(_ result: Outcome) -> Bool {
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

    /// Why no sign-in arrived within `timeout`, as far as the listener saw: the start link
    /// never opened (no browser came), or the browser went to the provider and never came
    /// back (it may have refused the client id or this redirect URI).
    func expired(after timeout: Duration) -> AuthError {
        let (started, port, refusals) = state.withLock { ($0.started, $0.port, $0.reported.count) }
        let within = "no sign-in arrived within \(timeout.worded)"
        if !started, refusals > 0 {
            return .authentication("\(within): every connection to the sign-in listener was refused (said above)", remedy: .logInAgain)
        }
        guard started else { return .authentication("\(within): the sign-in link was never opened", remedy: .logInAgain) }
        return .authentication(
            "\(within): the browser went to the provider and never came back to \(redirect.uri(boundPort: port))", remedy: .checkRedirect)
    }

    /// The result taken so far, released or not; nil while none is.
    package var taken: Outcome? { state.withLock { $0.result } }

    /// The handler that answers one connection's request for this inbox (the listener adds
    /// it after NIO's HTTP server pipeline; so does the loopback-request fuzz target).
    package func makeHandler() -> any ChannelHandler { CallbackHandler(inbox: self) }

    func next() async -> Outcome {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Outcome? in
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

    /// What one request gets: a page, perhaps extra headers, and whether it settled the sign-in.
    struct Answer {
        var status: HTTPResponseStatus
        var title: String
        var message: String
        var headers: [(String, String)] = []
        var settled = false
    }

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
            let answer = answer(head)
            let inbox = self.inbox
            respond(context: context, answer) {
                if answer.settled { inbox.release() }
            }
        }
    }

    /// The page for `head`: the start link's redirect, or the redirect taken when it is the right one.
    private func answer(_ head: HTTPRequestHead) -> Answer {
        let components = URLComponents(string: head.uri)
        guard head.method == .GET, let components, components.percentEncodedPath == inbox.redirect.path || components.path.hasPrefix("/start/")
        else {
            return Answer(status: .notFound, title: "Not found", message: "Only the sign-in of \(inbox.names.program) is served here.")
        }
        let hosts = head.headers["Host"]
        guard hosts.count == 1, inbox.redirect.hostHeaders(boundPort: inbox.port).contains(hosts[0].lowercased()) else {
            return Answer(
                status: .badRequest, title: "Refused", message: "This request was not sent to the address of \(inbox.names.program); it was ignored.")
        }
        if components.path.hasPrefix("/start/") {
            return start(token: String(components.path.dropFirst("/start/".count)))
        }
        guard Self.cookies(head.headers).contains(where: { $0.name == inbox.cookieName && Self.constantTimeEqual($0.value, inbox.cookieValue) })
        else {
            return linkReused()
        }
        var query: [String: String] = [:]
        var repeated = false
        for (name, value) in Self.formFields(components.percentEncodedQuery ?? "") {
            if query[name] != nil { repeated = true }
            query[name] = value
        }
        guard !repeated, let state = query["state"], Self.constantTimeEqual(state, inbox.expectedState) else {
            return Answer(
                status: .badRequest, title: "Refused",
                message: "This sign-in response does not belong to the running sign-in of \(inbox.names.program); it was ignored.")
        }
        let callback: AuthorizationCallback
        if let error = query["error"] {
            callback = .error(code: error, description: query["error_description"])
        } else if let code = query["code"], !code.isEmpty {
            callback = .code(code)
        } else {
            return Answer(status: .badRequest, title: "Refused", message: "The response has neither a code nor an error; it was ignored.")
        }
        guard inbox.accept(.callback(callback)) else { return Self.alreadyUsed }
        let forget = [("Set-Cookie", "\(inbox.cookieName)=; Max-Age=0; HttpOnly; SameSite=Lax; Path=/")]
        if case .error = callback {
            return Answer(
                status: .ok, title: "Sign-in not completed",
                message: "The provider did not sign you in. You can close this tab; \(inbox.names.program) says why.",
                headers: forget, settled: true)
        }
        return Answer(
            status: .ok, title: "Signed in", message: "The sign-in finished. You can close this tab and return to the terminal.",
            headers: forget, settled: true)
    }

    /// The start link: the first fetch is sent on to the provider with the cookie; another ends the sign-in.
    private func start(token: String) -> Answer {
        guard Self.constantTimeEqual(token, inbox.startToken) else {
            return Answer(
                status: .notFound, title: "Not found",
                message: "This is not the link of the running sign-in of \(inbox.names.program); it was ignored.")
        }
        guard let authorizationURL = inbox.claimStart() else { return linkReused() }
        return Answer(
            status: .found, title: "Signing in", message: "Continuing to the sign-in page.",
            headers: [
                ("Location", authorizationURL.absoluteString),
                ("Set-Cookie", "\(inbox.cookieName)=\(inbox.cookieValue); HttpOnly; SameSite=Lax; Path=/"),
            ])
    }

    /// Ends the sign-in (when it is still running): the link was used by someone else.
    private func linkReused() -> Answer {
        guard inbox.accept(.linkReused) else { return Self.alreadyUsed }
        return Answer(
            status: .forbidden, title: "Sign-in stopped",
            message:
                "Another program used this sign-in link, so \(inbox.names.program) stopped the sign-in and stored nothing. \(inbox.names.startAgain)",
            settled: true)
    }

    private static let alreadyUsed = Answer(
        status: .badRequest, title: "Already used", message: "This sign-in was already completed or given up; it was ignored.")

    /// Writes the page and closes the connection; `written` runs once the page is out (or failed).
    private func respond(context: ChannelHandlerContext, _ answer: Answer, written: @escaping @Sendable () -> Void) {
        let html = """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title>vault: \(answer.title)</title></head>
            <body><h1>vault: \(answer.title)</h1><p>\(answer.message)</p></body></html>

            """
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: String(html.utf8.count))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(name: "Connection", value: "close")
        for (name, value) in answer.headers { headers.add(name: name, value: value) }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: answer.status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: html)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            written()
            // The browser closes first (the answer says `Connection: close`; its FIN closes
            // this channel), so the TIME_WAIT that follows a connection stays on its side:
            // on this side it would hold a fixed redirect URI's port for a minute, and the
            // next sign-in there could not listen. A client that keeps the connection open
            // is closed after a moment.
            channel.eventLoop.scheduleTask(in: Self.closeGrace) { channel.close(promise: nil) }
        }
    }

    /// How long a client may keep a connection open after its answer.
    static let closeGrace = TimeAmount.seconds(3)

    /// The cookies of every `Cookie` header (RFC 6265 §5.4: `name=value` pairs separated by `; `).
    static func cookies(_ headers: HTTPHeaders) -> [(name: String, value: String)] {
        headers["Cookie"].flatMap { line in
            line.split(separator: ";").compactMap { pair -> (name: String, value: String)? in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2 else { return nil }
                return (parts[0].trimmingCharacters(in: .whitespaces), parts[1].trimmingCharacters(in: .whitespaces))
            }
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
