// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import Logging
import VaultStore

/// An OAuth 2.0 token endpoint (RFC 6749): the password grant (§4.3) for login and silent
/// re-login, the refresh_token grant (§6), and the client_credentials grant (§4.4) for service
/// accounts; the client authenticates by HTTP Basic or form fields, a public client by `client_id`
/// alone. The interactive grants get their first tokens through
/// ``exchange(code:verifier:redirectURI:nonce:)`` and ``pollDevice(_:)``; when their refresh token
/// dies, ``login(account:password:)`` throws ``AuthError/interactionRequired(_:)``. ID tokens are
/// kept only once ``idTokenVerifier`` accepted them. Errors (§5.2): `invalid_grant`, or a 400 or
/// 401 to a refresh naming no error, is `.authentication`; other client-side codes `.configuration`;
/// 5xx and 429 `.server`; timeouts `.network`. Details: docs/tokens.md, "OAuth 2.0 token endpoints".
public struct OAuth2Provider: AuthProvider {
    /// The token endpoint (``LoginSettings/tokenURL``); every grant is posted here.
    public let tokenURL: URL
    /// The OAuth client id, never empty; sent as ``clientAuthentication`` says.
    public let clientID: String
    let clientSecret: Secret?
    /// Makes the client secret of each request instead (Sign in with Apple's signed JWT).
    let appleClientSecret: AppleClientSecret?
    /// Whether the client id and secret go in an HTTP Basic header or in the form body.
    public let clientAuthentication: LoginSettings.ClientAuthentication
    /// The grant ``login(account:password:)`` uses: the password grant or client credentials.
    public let grant: LoginSettings.Grant
    /// The `scope` sent with each login (not with refreshes); nil sends none.
    public let scope: String?
    /// How the token requests reach the endpoint.
    public let transport: any HTTPTransport
    /// Dates each request's sending: `expires_in` counts from then, so expiries err early.
    public let clock: any AuthClock
    /// The bound on each token exchange, body included (default 15 s).
    public let timeout: Duration
    /// Checks the ID tokens of token responses; nil when the settings name no issuer and JWKS.
    public let idTokenVerifier: IDTokenVerifier?
    /// RFC 7009's endpoint, when the settings name one.
    public let revocationURL: URL?
    /// Where a refused ID token of a refresh is reported (the refresh itself goes on).
    let logger: Logger

    /// A provider for `settings`. Throws ``AuthError/configuration(_:providerCode:remedy:)`` when the token URL is
    /// missing or has no host, or the client id is missing or empty.
    public init(
        settings: LoginSettings, transport: any HTTPTransport, clock: any AuthClock = SystemClock(),
        timeout: Duration = .seconds(15), logger: Logger = Logger(label: "vault.oauth2")
    ) throws(AuthError) {
        self.logger = logger
        guard let tokenURLText = settings.tokenURL, let tokenURL = URL(string: tokenURLText), tokenURL.host != nil else {
            throw .configuration("the OAuth 2.0 provider needs a token URL", remedy: .giveSetting(.tokenURL))
        }
        guard let clientID = settings.clientID, !clientID.isEmpty else {
            throw .configuration("the OAuth 2.0 provider needs a client id", remedy: .giveSetting(.clientID))
        }
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.clientSecret = settings.clientSecret
        self.appleClientSecret = settings.apple.map { AppleClientSecret(clientID: clientID, settings: $0, clock: clock) }
        self.name = settings.provider == .apple ? "apple" : "oauth2"
        self.clientAuthentication = settings.clientAuthentication
        self.grant = settings.grant
        self.scope = settings.scope
        self.transport = transport
        self.clock = clock
        self.timeout = timeout
        self.revocationURL = settings.revocationURL.flatMap(URL.init(string:))
        if let issuer = settings.issuer, let jwks = settings.jwksURL.flatMap(URL.init(string:)) {
            idTokenVerifier = IDTokenVerifier(
                issuer: issuer, clientID: clientID, jwksURL: jwks, transport: transport, clock: clock, timeout: timeout)
        } else {
            idTokenVerifier = nil
        }
    }

    /// `"oauth2"`, or `"apple"` for Sign in with Apple; see ``AuthProvider/name``.
    public let name: String

    /// True only for the ``LoginSettings/Grant/password`` grant; see ``AuthProvider/needsPassword``.
    public var needsPassword: Bool { grant == .password }

    /// False for the browser and device grants; see ``AuthProvider/canLogInSilently``.
    public var canLogInSilently: Bool { grant != .authorizationCode && grant != .device }

    /// The message of the ``AuthError/interactionRequired(_:)`` a dead refresh token gives
    /// an account that signed in through the browser or the device grant.
    public static let sessionEnded = "the provider no longer accepts the refresh token, and only a person can sign in again"

    /// Posts the password grant (throwing ``AuthError/authentication(_:providerCode:remedy:)`` without a UTF-8
    /// password) or the client_credentials grant, with ``scope``. See ``AuthProvider/login(account:password:)``.
    public func login(account: String, password: Secret?) async throws(AuthError) -> TokenSet {
        var form: [(String, String)]
        switch grant {
        case .password:
            guard let password = password?.utf8String else {
                throw .authentication("no stored password for \(account)", remedy: .logIn(server: nil, account: account))
            }
            form = [("grant_type", "password"), ("username", account), ("password", password)]
        case .clientCredentials:
            form = [("grant_type", "client_credentials")]
        case .authorizationCode, .device:
            throw .interactionRequired(Self.sessionEnded)
        }
        if let scope { form.append(("scope", scope)) }
        return try await tokenRequest(form, previous: nil)
    }

    /// Posts the refresh_token grant; ``AuthError/authentication(_:providerCode:remedy:)`` without a refresh token,
    /// or when the refresh token is refused (``classifyRefusedRefresh(_:body:)``). See ``AuthProvider/refresh(_:)``.
    public func refresh(_ tokens: TokenSet) async throws(AuthError) -> TokenSet {
        guard let refreshToken = tokens.refreshToken?.utf8String else {
            throw .authentication("there is no refresh token")
        }
        return try await tokenRequest(
            [("grant_type", "refresh_token"), ("refresh_token", refreshToken)], previous: tokens, idToken: .refresh)
    }

    /// Exchanges an authorization code (RFC 6749 §4.1.3) with its PKCE `verifier` (RFC 7636
    /// §4.5); the ID token, if any, must carry `nonce`.
    public func exchange(code: String, verifier: String, redirectURI: String, nonce: String?) async throws(AuthError) -> TokenSet {
        try await tokenRequest(
            [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", verifier)],
            previous: nil, idToken: .signIn(nonce: nonce))
    }

    /// Exchanges an authorization code that was obtained without PKCE by someone else (an
    /// app's Sign in with Apple): `redirect_uri` only when given; the ID token must carry
    /// `nonce` when one is given.
    public func exchange(code: String, redirectURI: String?, nonce: String?) async throws(AuthError) -> TokenSet {
        var fields = [("grant_type", "authorization_code"), ("code", code)]
        if let redirectURI { fields.append(("redirect_uri", redirectURI)) }
        let tokens = try await tokenRequest(fields, previous: nil, idToken: .signIn(nonce: nonce))
        // Who signed in is known only from the ID token: an exchange without one is refused.
        guard tokens.idToken != nil else { throw IDTokenVerifier.refusal("the provider sent none with the code exchange") }
        return tokens
    }

    /// A POST of `fields` to `url` with the client's authentication; the response, whatever its status.
    func clientPost(_ url: URL, _ fields: [(String, String)]) async throws(AuthError) -> (response: HTTPResponse, body: [UInt8]) {
        try URLPolicy.check(url)
        var form = fields
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .accept: "application/json"]
        let secret = try await appleClientSecret?.current().utf8String ?? clientSecret?.utf8String
        switch (clientAuthentication, secret) {
        case (.basic, let secret?):
            let user = FormEncoding.escape(clientID)
            let pass = FormEncoding.escape(secret)
            headers[.authorization] = "Basic " + Data("\(user):\(pass)".utf8).base64EncodedString()
        case (.form, let secret?):
            form.append(("client_id", clientID))
            form.append(("client_secret", secret))
        case (_, nil):
            form.append(("client_id", clientID))
        }
        let request = HTTPRequest(method: .post, url: url, headerFields: headers)
        return try await transport.send(request, body: Array(FormEncoding.encode(form).utf8), timeout: timeout)
    }

    /// How the ID token of a token response is checked.
    enum IDTokenCheck {
        /// A first sign-in: the authorization request's nonce (nil for grants without one).
        case signIn(nonce: String?)
        /// A refresh: the same user, issuer and audience as the previous ID token.
        case refresh
    }

    func tokenRequest(
        _ fields: [(String, String)], previous: TokenSet?, idToken check: IDTokenCheck = .signIn(nonce: nil)
    )
        async throws(AuthError) -> TokenSet
    {
        let sentAt = clock.now()
        let (response, body) = try await clientPost(tokenURL, fields)
        let status = response.status.code
        guard response.status.kind == .successful else {
            if case .refresh = check { throw Self.classifyRefusedRefresh(response, body: body) }
            throw Self.classify(response, body: body)
        }
        guard let answer = OAuthJSON.decode(OAuthTokenResponse.self, body), !answer.accessToken.isEmpty else {
            throw .server(status: status, message: "the token response is not the expected JSON")
        }
        let access = answer.accessToken
        guard let type = answer.tokenType?.value, type.lowercased() == "bearer" else {
            let shown = answer.tokenType?.value.map { TextEscaping.escaped(String($0.prefix(40))) } ?? "none"
            throw .server(status: status, message: "the token response has token_type \(shown), not Bearer")
        }
        let expiresIn = try Self.lifetime(answer.expiresIn, status: status)
        let refreshText = answer.refreshToken?.value.flatMap { $0.isEmpty ? nil : $0 }
        guard TokenCharacters.isAcceptable(access) else { throw TokenCharacters.refusal("an access token", status: status) }
        if let refreshText, !TokenCharacters.isAcceptable(refreshText) {
            throw TokenCharacters.refusal("a refresh token", status: status)
        }
        let refresh = refreshText.map { Secret($0) }
        let idToken = try await verifiedIDToken(
            answer.idToken, check: check, previous: previous, rotated: refresh != nil, status: status)
        let refreshExpiry = Self.refreshLifetime(answer.refreshExpiresIn).map { sentAt.addingTimeInterval($0) }
        return TokenSet(
            accessToken: Secret(access), accessTokenExpiry: sentAt.addingTimeInterval(expiresIn),
            refreshToken: refresh ?? previous?.refreshToken,
            refreshTokenExpiry: refreshExpiry ?? (refresh == nil ? previous?.refreshTokenExpiry : nil),
            obtainedAt: sentAt, idToken: idToken ?? previous?.idToken)
    }

    /// The response's `id_token` once verified; nil when there is none, or no verifier to check it with
    /// (an unverified ID token is never kept).
    ///
    /// At sign-in a token that fails a check fails the whole exchange: nothing is stored; an
    /// OpenID Connect code exchange (one with a nonce) must bring one. With a refresh the
    /// provider has already rotated the refresh token, so failing the exchange would end the
    /// session: a token that is malformed or fails a check (signature, issuer, audience,
    /// times) is dropped, the session's earlier one stays, and a warning is logged. When the
    /// refresh did not rotate the refresh token (`rotated` false, as Sign in with Apple's
    /// never do), the old one still works, so such a token fails the refresh instead: a
    /// `.server` error with the response's 2xx `status` (transient: a still valid access
    /// token goes on being used). A verified token naming another user or other
    /// audiences than the session's (Core §12.2) always fails the refresh: the session is no
    /// longer the one the person signed in to.
    private func verifiedIDToken(
        _ value: Loose<String>?, check: IDTokenCheck, previous: TokenSet?, rotated: Bool, status: Int
    ) async throws(AuthError) -> Secret? {
        guard let idTokenVerifier else { return nil }
        guard let value else {
            // OpenID Connect Core §3.1.3.3: a code exchange for a request with a nonce (scope
            // openid) returns an ID token; the device grant and refreshes need not.
            if case .signIn(.some) = check {
                throw IDTokenVerifier.refusal("the provider sent none for an OpenID Connect sign-in")
            }
            return nil
        }
        let text = value.value.flatMap { TokenCharacters.isAcceptable($0) ? $0 : nil }
        switch check {
        case .signIn(let nonce):
            guard let text else { throw IDTokenVerifier.refusal("it is not a compact JWT") }
            _ = try await idTokenVerifier.verify(text, nonce: nonce)
            return Secret(text)
        case .refresh:
            let claims: IDTokenClaims
            do throws(AuthError) {
                guard let text else { throw IDTokenVerifier.refusal("it is not a compact JWT of at most 16 KiB") }
                claims = try await idTokenVerifier.verify(text, nonce: nil)
            } catch {
                guard rotated else {
                    throw .server(status: status, message: "the ID token that came with the refresh was refused (\(error))")
                }
                logger.warning("the ID token that came with the refresh was not kept (\(error)); the new tokens are")
                return nil
            }
            if let earlier = previous?.idToken?.utf8String.flatMap(IDTokenClaims.init(storedToken:)) {
                try IDTokenVerifier.checkContinuity(claims, previous: earlier)
            }
            return text.map { Secret($0) }
        }
    }

    /// The longest `expires_in` accepted: ten years.
    package static let maximumLifetime: Double = 10 * 366 * 86_400

    /// `expires_in` in seconds: a number, or a string of digits (some servers quote it);
    /// 3600 when absent (RFC 6749 §5.1 only recommends it). Anything else, zero, negative
    /// or absurd, is a server error rather than a silent guess.
    static func lifetime(_ value: Loose<OAuthSeconds>?, status: Int) throws(AuthError) -> TimeInterval {
        guard let value else { return 3600 }
        guard let seconds = value.value?.seconds, seconds.isFinite, seconds > 0, seconds <= maximumLifetime else {
            throw .server(status: status, message: "the token response has an unusable expires_in")
        }
        return seconds
    }

    /// `refresh_expires_in` in seconds (Keycloak's field: the refresh token's remaining life,
    /// counted from the request's sending like `expires_in`), read as ``lifetime(_:status:)``
    /// reads `expires_in`. Absent, zero (Keycloak's offline tokens), negative, not a number or
    /// absurd: nil, and the refresh token's expiry stays unknown; never fatal, as the field
    /// is optional and only informs when to refresh ahead.
    static func refreshLifetime(_ value: Loose<OAuthSeconds>?) -> TimeInterval? {
        guard let value else { return nil }
        return try? lifetime(value, status: 200)
    }

    /// The error for a non-2xx answer to a refresh. A 400 or 401 that names no error (an
    /// empty body, or JSON without `error`) is a refused refresh token, as `invalid_grant` is:
    /// ``AuthError/authentication(_:providerCode:remedy:)``. RFC 6749 §5.2 says `invalid_grant`,
    /// but Glewlwyd answers a revoked, rotated-away or expired refresh token with an empty
    /// 400; read as server trouble, that kept dead tokens and called the account usable. A
    /// code that blames something else keeps the session (`invalid_client`,
    /// `unauthorized_client`: the client; `temporarily_unavailable`: the server, transient),
    /// and so does a page that is not JSON (a proxy's): as ``classify(_:body:endpoint:)`` says.
    package static func classifyRefusedRefresh(_ response: HTTPResponse, body: [UInt8]) -> AuthError {
        let error = classify(response, body: body)
        guard response.status == .badRequest || response.status == .unauthorized else { return error }
        let blank = body.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let object = OAuthJSON.decode(OAuthErrorResponse.self, body)
        switch error.providerCode {
        case "temporarily_unavailable":
            // Transient, whatever the status: the tokens are kept and a later try may work.
            return .network("the token endpoint is temporarily unavailable (HTTP \(response.status.code), temporarily_unavailable)")
        case nil where blank || object != nil:
            return .authentication("the token endpoint refused the refresh token (HTTP \(response.status.code), no error code)")
        default:
            return error
        }
    }

    /// The error for a non-2xx response of `endpoint` (RFC 6749 §5.2; RFC 7009 and RFC 8628 use the same errors).
    package static func classify(_ response: HTTPResponse, body: [UInt8], endpoint: String = "the token endpoint") -> AuthError {
        if let redirect = RedirectRule.refusal(response, what: endpoint == "the token endpoint" ? "the token request" : "a request to \(endpoint)") {
            return redirect
        }
        let object = OAuthJSON.decode(OAuthErrorResponse.self, body)
        let code = object?.error?.value.map { TextEscaping.escaped(String($0.prefix(80))) }
        let detail = object?.errorDescription?.value.map { ": " + TextEscaping.escaped(String($0.prefix(200))) } ?? ""
        // A 5xx or 429 is the server's trouble whatever its body says: stored tokens are never
        // dropped for it.
        let serverTrouble = response.status.code >= 500 || response.status == .tooManyRequests
        switch serverTrouble ? nil : code {
        case "invalid_grant":
            return .authentication("\(endpoint) answered invalid_grant\(detail)", providerCode: "invalid_grant")
        case "invalid_client":
            return .configuration(
                "the OAuth client was rejected (invalid_client\(detail))", providerCode: "invalid_client", remedy: .checkClient)
        case "unauthorized_client":
            // RFC 6749 says this of a known client denied the grant; Glewlwyd's device endpoint
            // answers an unknown client id with it (403) instead of invalid_client (401).
            return .configuration(
                "the OAuth client was rejected or may not use this grant (unauthorized_client\(detail))",
                providerCode: "unauthorized_client", remedy: .checkClient)
        case .some(let code):
            return .configuration("\(endpoint) answered \(code)\(detail)", providerCode: code)
        default:
            let retry = response.headerFields[.retryAfter].map { " (retry after \(TextEscaping.escaped(String($0.prefix(40)))) s)" } ?? ""
            return .server(status: response.status.code, message: "\(endpoint) failed\(code.map { " with \($0)" } ?? "")\(retry)")
        }
    }
}
