// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import Logging
import VaultStore

/// What the Requester and its ``TokenSource`` did for a request, for logs and for the `vault request` report.
public enum RequesterEvent: Sendable, Equatable {
    /// The stored access token was used as it was.
    case usedToken
    /// The access token was refreshed with the refresh token.
    case refreshed
    /// Another process had refreshed already; its tokens were taken from the store.
    case adoptedStoredTokens
    /// The refresh token was dead and the reauthenticator logged in again.
    case loggedInAgain
    /// A 401 led to one replay of the request.
    case replayedAfter401
    /// New tokens could not be written to the store: they are kept in memory and the save
    /// is tried again on the next use (the message says why it failed).
    case tokensNotSaved(String)
    /// A redirect within the server's origin was followed (with the token).
    case followedRedirect
    /// A redirect to another origin was followed without the token.
    case followedRedirectWithoutToken
}

/// Sends HTTP requests with the access token of a ``TokenSource``, which keeps it valid.
///
/// - The token goes only to the account's origin (`AccountItems.server`: scheme, host and
///   port, see `Origin`): a request for any other origin is refused before anything is
///   sent. Redirects are followed here, by `RedirectRule`, whatever the transport: within
///   the origin with the token, to another origin without it (and never with a body).
///   Only a 401 answered to a request that carried the token counts as a rejected token.
/// - A 401 for a request that carried the current token causes one refresh and one
///   replay; a 401 for a token that was replaced meanwhile is replayed with the new one
///   without a refresh (``TokenSource/replacement(afterRejectionOf:)``). Never more than
///   one replay per request: a second 401 is `.authentication`.
/// - Everything about the token itself (refresh, single flight across processes, adoption,
///   silent re-login) is the ``TokenSource``'s; a Requester holds no state of its own.
public final class Requester: Sendable {
    /// How a ``Requester`` and its ``TokenSource`` time, bound and lock their work; every value has a default.
    public struct Configuration: Sendable {
        /// Refresh this long before expiry (at most half the token's lifetime).
        public var leeway: TimeInterval = TokenSet.defaultLeeway
        /// The timeout of each request to the resource server.
        public var requestTimeout: Duration = .seconds(30)
        /// How long to wait for another process's refresh.
        public var lockTimeout: Duration = .seconds(60)
        /// Where the cross-process refresh lock lives (default: `.automatic`).
        public var lock: RefreshLock.Placement
        /// How many refreshes rejected tokens may cause in how long before requests fail
        /// with ``AuthError/excessiveRefresh(_:)`` (default: 3 in 60 s).
        public var refreshWindow: RefreshWindow

        /// Creates a configuration. Defaults: leeway ``TokenSet/defaultLeeway``, request timeout 30 s, lock
        /// timeout 60 s, ``RefreshLock/Placement/automatic``, and at most 3 rejection refreshes in 60 s.
        public init(
            leeway: TimeInterval = TokenSet.defaultLeeway, requestTimeout: Duration = .seconds(30),
            lockTimeout: Duration = .seconds(60), lock: RefreshLock.Placement = .automatic,
            refreshWindow: RefreshWindow = RefreshWindow()
        ) {
            self.leeway = leeway
            self.requestTimeout = requestTimeout
            self.lockTimeout = lockTimeout
            self.lock = lock
            self.refreshWindow = refreshWindow
        }
    }

    /// Where the tokens come from.
    public let supplier: any TokenSupplying
    /// The supplier's ``TokenSupplying/localSource``: the source that does the work in this process.
    public var tokenSource: TokenSource { supplier.localSource }
    /// The supplier when it is a ``TokenSource``: then a fresh held token is taken without
    /// a suspension (its synchronous fast path).
    private let directSource: TokenSource?
    /// Where the token may go (nil: nowhere, the account's server is not a URL or host).
    private let accountOrigin: Origin?
    private let transport: any HTTPTransport
    private let onEvent: @Sendable (RequesterEvent) -> Void

    /// A requester sending `tokenSource`'s tokens through `transport`, each exchange bounded by its
    /// configuration's ``Configuration/requestTimeout``. `onEvent` gets the requester's own events
    /// (replays, redirects); the source reports the token's.
    public convenience init(
        tokenSource: TokenSource, transport: any HTTPTransport, onEvent: @escaping @Sendable (RequesterEvent) -> Void = { _ in }
    ) {
        self.init(supplier: tokenSource, transport: transport, onEvent: onEvent)
    }

    /// A requester sending `supplier`'s tokens through `transport`, under the same rules as
    /// with a ``TokenSource`` (origin checks, one replay after a 401).
    public init(supplier: any TokenSupplying, transport: any HTTPTransport, onEvent: @escaping @Sendable (RequesterEvent) -> Void = { _ in }) {
        self.supplier = supplier
        self.directSource = supplier as? TokenSource
        self.accountOrigin = Self.origin(of: supplier.account.server)
        self.transport = transport
        self.onEvent = onEvent
    }

    /// A requester for `account` with a ``TokenSource`` of its own; nothing is read or sent until the
    /// first request. `onEvent` gets every ``RequesterEvent``, on whatever thread the work runs. Without
    /// `reauthenticator` a dead refresh token fails with ``AuthError/authentication(_:providerCode:remedy:)``.
    public convenience init(
        account: AccountItems, provider: any AuthProvider, transport: any HTTPTransport,
        clock: any AuthClock = SystemClock(), configuration: Configuration = Configuration(),
        reauthenticator: (any Reauthenticating)? = nil, logger: Logger = Logger(label: "vault.requester"),
        onEvent: @escaping @Sendable (RequesterEvent) -> Void = { _ in }
    ) {
        let source = TokenSource(
            account: account, provider: provider, clock: clock, configuration: configuration, reauthenticator: reauthenticator,
            logger: logger, onEvent: onEvent)
        self.init(tokenSource: source, transport: transport, onEvent: onEvent)
    }

    /// The account whose tokens this requester sends; the token goes only to its server's origin.
    public var account: AccountItems { supplier.account }

    /// Sends `request` and `body` (nil: none) with `Authorization: Bearer <access token>`
    /// and returns the response and its body, whatever the status, unless authentication
    /// fails for good.
    ///
    /// Throws `.invalidRequest` before sending anything when the request's URL is not on
    /// the account's origin (or breaks `URLPolicy`), or the method or a header could
    /// reroute or split the request (`validateForSending`). Concurrent requests do not
    /// queue behind each other: only the token bookkeeping is serialised, in the
    /// ``TokenSource``.
    public func send(_ request: HTTPRequest, body: [UInt8]? = nil) async throws(AuthError) -> (response: HTTPResponse, body: [UInt8]) {
        // A CONNECT opens a tunnel and has no URL of its own (swift-http-types gives none).
        guard request.method != .connect else { throw .invalidRequest("vault does not send CONNECT: it opens a tunnel, not a request") }
        guard let url = request.url else { throw .invalidRequest("the request has no absolute http(s) URL") }
        try checkOrigin(url)
        try request.validateForSending()
        // The fast path is synchronous: a fresh held token costs no suspension at all.
        let used: HeldTokens
        if let source = directSource {
            if let fresh = source.freshAuthorization() { used = fresh } else { used = try await source.authorizationOnTheActor() }
        } else {
            used = HeldTokens(try await supplier.token(), stored: true)
        }
        var authorized = request
        authorized.headerFields[.authorization] = used.bearer
        let first = try await exchange(authorized, body: body)
        guard first.rejectedToken else { return (first.response, first.body) }

        let replacement = try await supplier.replacement(afterRejectionOf: used.tokens)
        onEvent(.replayedAfter401)
        authorized.headerFields[.authorization] = HeldTokens.bearer(replacement.accessToken)
        let replayed = try await exchange(authorized, body: body)
        guard !replayed.rejectedToken else {
            throw .authentication("the server rejects the account's new access token too")
        }
        return (replayed.response, replayed.body)
    }

    /// Throws unless `url` is on the account's origin and allowed by `URLPolicy`.
    func checkOrigin(_ url: URL) throws(AuthError) {
        try URLPolicy.check(url)
        guard let target = Origin(url), let own = accountOrigin, target == own else {
            let other = Origin(url).map(\.description) ?? "an unknown host"
            throw .invalidRequest(
                "refusing to send the token of \(TextEscaping.escaped(account.server)) to another origin (\(TextEscaping.escaped(other)))")
        }
    }

    /// The account's origin: `account.server` as a URL, or `https://SERVER` for a bare host.
    static func origin(of server: String) -> Origin? {
        URL(string: server.contains("://") ? server : "https://\(server)").flatMap(Origin.init)
    }

    /// One request and the redirects `RedirectRule` allows, all within one
    /// `requestTimeout`. `rejectedToken` is true when the final answer is a 401 to a
    /// request that still carried the token.
    private func exchange(
        _ request: HTTPRequest, body: [UInt8]?
    ) async throws(AuthError) -> (response: HTTPResponse, body: [UInt8], rejectedToken: Bool) {
        let requestTimeout = supplier.configuration.requestTimeout
        var current = (request: request, body: body)
        let timer = ContinuousClock()
        let deadline = timer.now + requestTimeout
        for _ in 0...RedirectRule.maximumHops {
            let remaining = deadline - timer.now
            guard remaining > .zero else {
                throw .network("no final answer within \(requestTimeout), redirects included")
            }
            let answer = try await transport.send(current.request, body: current.body, timeout: remaining)
            guard let next = try RedirectRule.next(after: current.request, body: current.body, response: answer.response) else {
                let carriedToken = current.request.headerFields[.authorization] != nil
                return (answer.response, answer.body, supplier.provider.rejectsToken(answer.response) && carriedToken)
            }
            onEvent(next.request.headerFields[.authorization] != nil ? .followedRedirect : .followedRedirectWithoutToken)
            current = next
        }
        throw .network("more than \(RedirectRule.maximumHops) redirects")
    }
}
