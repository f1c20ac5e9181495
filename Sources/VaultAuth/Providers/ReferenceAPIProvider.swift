// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import Logging
import VaultStore

/// The reference auth API of the seed article (`vault-auth-server` serves it):
/// `POST /api/login {"login","password"}` and `POST /api/refresh_tokens` with the refresh
/// token as a bearer token, both answering with absolute expiries in Unix milliseconds.
///
/// Expiries are moved onto the local clock with the skew measured from the response's
/// `Date` header. A 401, or a 4xx whose message is one of the API's authentication
/// messages, is `.authentication`; 5xx, 429 and unparseable bodies are `.server`;
/// timeouts and connection failures `.network`.
public struct ReferenceAPIProvider: AuthProvider {
    /// The API's base URL; `api/login` and `api/refresh_tokens` are appended to it as path components.
    public let baseURL: URL
    /// How the login and refresh requests reach the API.
    public let transport: any HTTPTransport
    /// The local clock the response's `Date` header is compared with (see ``ClockSkew``).
    public let clock: any AuthClock
    /// The bound on each login or refresh exchange, body included (default 15 s).
    public let timeout: Duration
    let logger: Logger

    /// The API's authentication messages (its `{"message"}` values).
    public static let authenticationMessages: Set<String> = [
        "wrong login or password", "invalid access token", "access token expired", "invalid refresh token",
        "refresh token expired",
    ]

    /// A provider for the API at `baseURL`; nothing is sent until the first login or refresh.
    public init(
        baseURL: URL, transport: any HTTPTransport, clock: any AuthClock = SystemClock(), timeout: Duration = .seconds(15),
        logger: Logger = Logger(label: "vault.reference")
    ) {
        self.baseURL = baseURL
        self.transport = transport
        self.clock = clock
        self.timeout = timeout
        self.logger = logger
    }

    /// `"reference"`; see ``AuthProvider/name``.
    public var name: String { "reference" }

    /// `POST api/login` with the account and its password; throws ``AuthError/authentication(_:providerCode:remedy:)``
    /// without a UTF-8 password. See ``AuthProvider/login(account:password:)``.
    public func login(account: String, password: Secret?) async throws(AuthError) -> TokenSet {
        guard let password, let text = password.utf8String else {
            throw .authentication("no stored password for \(account)", remedy: .logIn(server: nil, account: account))
        }
        let body = try? JSONEncoder().encode(ReferenceLogin(login: account, password: text))
        let request = HTTPRequest(method: .post, url: try endpoint("api/login"), headerFields: [.contentType: "application/json"])
        return try await exchange(request, body: body.map(Array.init), what: "login")
    }

    /// `POST api/refresh_tokens` with the refresh token as a bearer token; keeps the old refresh token and its
    /// expiry when the answer has none. See ``AuthProvider/refresh(_:)``.
    public func refresh(_ tokens: TokenSet) async throws(AuthError) -> TokenSet {
        guard let refreshToken = tokens.refreshToken?.utf8String else {
            throw .authentication("there is no refresh token")
        }
        let request = HTTPRequest(
            method: .post, url: try endpoint("api/refresh_tokens"), headerFields: [.authorization: "Bearer \(refreshToken)"])
        var refreshed = try await exchange(request, body: nil, what: "refresh")
        if refreshed.refreshToken == nil {
            refreshed.refreshToken = tokens.refreshToken
            refreshed.refreshTokenExpiry = tokens.refreshTokenExpiry
        }
        return refreshed
    }

    /// `path` on the base URL, once `URLPolicy` allows it (an HTTP request needs an absolute URL).
    private func endpoint(_ path: String) throws(AuthError) -> URL {
        let url = baseURL.appendingPathComponent(path)
        try URLPolicy.check(url)
        return url
    }

    /// Sends a login or refresh request and turns the answer into tokens or an error.
    private func exchange(_ request: HTTPRequest, body: [UInt8]?, what: String) async throws(AuthError) -> TokenSet {
        let sentAt = clock.now()
        let (response, answer) = try await transport.send(request, body: body, timeout: timeout)
        let receivedAt = clock.now()
        let status = response.status.code
        guard response.status.kind == .successful else { throw Self.classify(response, body: answer, what: what) }
        guard let tokens = OAuthJSON.decode(ReferenceTokens.self, answer), !tokens.accessToken.isEmpty,
            Self.isUsableExpiry(tokens.accessTokenExpire), tokens.refreshTokenExpire?.value.map(Self.isUsableExpiry) ?? true
        else {
            throw .server(status: status, message: "the \(what) response is not the expected JSON")
        }
        let access = tokens.accessToken
        let accessExpire = tokens.accessTokenExpire
        let skew = ClockSkew.measure(dateHeader: response.headerFields[.date], sentAt: sentAt, receivedAt: receivedAt)
        if skew.exceedsBound {
            let bound = Int(ClockSkew.maximumOffset)
            logger.notice(
                "the server's Date header is \(Int(skew.measuredOffset)) s off our clock, beyond the \(bound) s bound; not correcting expiries by it"
            )
        } else if skew != .none {
            logger.info("the server's clock is \(Int(skew.offset)) s off ours; token expiries are corrected")
        }
        let refresh = tokens.refreshToken?.value
        guard TokenCharacters.isAcceptable(access) else { throw TokenCharacters.refusal("an access token", status: status) }
        if let refresh, !refresh.isEmpty, !TokenCharacters.isAcceptable(refresh) {
            throw TokenCharacters.refusal("a refresh token", status: status)
        }
        let refreshExpire = tokens.refreshTokenExpire?.value
        return TokenSet(
            accessToken: Secret(access),
            accessTokenExpiry: skew.local(Date(timeIntervalSince1970: accessExpire / 1000)),
            refreshToken: refresh.flatMap { $0.isEmpty ? nil : Secret($0) },
            refreshTokenExpiry: refreshExpire.map { skew.local(Date(timeIntervalSince1970: $0 / 1000)) },
            obtainedAt: receivedAt)
    }

    /// The latest expiry the API may give, in Unix milliseconds: the end of year 9999. A
    /// later one (1e300) is not a date any clock or report can hold.
    static let latestExpiry: Double = 253_402_300_799_999

    /// True for an expiry in milliseconds within ±``latestExpiry`` (one in the past is a
    /// token that has expired, not an error).
    static func isUsableExpiry(_ milliseconds: Double) -> Bool { abs(milliseconds) <= latestExpiry }

    /// The error for a non-2xx answer of the reference API.
    package static func classify(_ response: HTTPResponse, body: [UInt8], what: String) -> AuthError {
        if let redirect = RedirectRule.refusal(response, what: "the \(what) request") { return redirect }
        let message = OAuthJSON.decode(ReferenceMessage.self, body)?.message?.value
        let shown = message.map { TextEscaping.escaped(String($0.prefix(200))) } ?? "no error message"
        if response.status == 401 || (message.map(authenticationMessages.contains) ?? false) {
            return .authentication("\(what) rejected: \(shown)")
        }
        return .server(status: response.status.code, message: "\(what) failed: \(shown)")
    }
}

/// The body of `POST api/login`.
private struct ReferenceLogin: Encodable {
    let login: String
    let password: String
}

/// A login or refresh answer: expiries in Unix milliseconds; the refresh token and its
/// expiry nil when absent or of another type.
private struct ReferenceTokens: Decodable {
    let accessToken: String
    let accessTokenExpire: Double
    let refreshToken: Loose<String>?
    let refreshTokenExpire: Loose<Double>?
}

/// An error answer's `{"message"}`.
private struct ReferenceMessage: Decodable {
    let message: Loose<String>?
}
