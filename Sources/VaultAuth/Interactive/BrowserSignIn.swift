// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

/// The authorization code grant with PKCE through the browser (RFC 6749 §4.1, RFC 7636,
/// RFC 8252): listen on the loopback redirect URI, send the person to the authorization
/// endpoint, take the one redirect with this request's `state`, exchange the code.
public struct BrowserSignIn: Sendable {
    /// The client and token endpoint the code is exchanged at.
    public let provider: OAuth2Provider
    /// Where the person signs in.
    public let authorizationURL: URL
    /// True for OpenID Connect: a `nonce` is sent and the ID token must carry it.
    public let openIDConnect: Bool
    /// How long the person has to finish (default 5 minutes).
    public let timeout: Duration
    /// How the listener's pages name the program (``SignInPageNames``).
    public let pageNames: SignInPageNames
    /// Where the listener waits for the redirect (default: any port of 127.0.0.1).
    public let redirect: LoopbackRedirect

    /// A sign-in with `provider` at `authorizationURL`, the redirect coming back to
    /// `redirect`; `.invalidRequest` when that URL fails ``URLPolicy``. The listener's pages
    /// name the program as `pageNames` says.
    public init(
        provider: OAuth2Provider, authorizationURL: URL, openIDConnect: Bool, timeout: Duration = .seconds(300),
        pageNames: SignInPageNames = .neutral, redirect: LoopbackRedirect = .anyPort
    )
        throws(AuthError)
    {
        try URLPolicy.check(authorizationURL)
        self.redirect = redirect
        self.provider = provider
        self.authorizationURL = authorizationURL
        self.openIDConnect = openIDConnect
        self.timeout = timeout
        self.pageNames = pageNames
    }

    /// The authorization request URL for `secrets` and `redirectURI`, keeping any query the endpoint has.
    public func requestURL(_ secrets: AuthorizationSecrets, redirectURI: String) -> URL {
        var parameters = [
            ("response_type", "code"), ("client_id", provider.clientID), ("redirect_uri", redirectURI), ("state", secrets.state),
            ("code_challenge", secrets.codeChallenge), ("code_challenge_method", "S256"),
        ]
        if let scope = provider.scope { parameters.append(("scope", scope)) }
        if openIDConnect { parameters.append(("nonce", secrets.nonce)) }
        return QueryString.appending(parameters, to: authorizationURL)
    }

    /// Runs the sign-in: `present` gets the link to open (print it), `open` may open it in a
    /// browser, `refused` hears of each other user whose connections to the listener were
    /// refused (once per user). The link is the listener's one-time start link
    /// (``LoopbackRedirectListener/startURL``), never the authorization URL, so the `state`,
    /// the PKCE challenge and the nonce are not in any command line. Returns the tokens (the
    /// ID token verified); nothing is stored here.
    ///
    /// Errors: the provider's `error` redirect is ``AuthError/authentication(_:providerCode:remedy:)``
    /// with its code and (escaped) description; the timeout, and a start link used twice or a
    /// redirect without its cookie, are `.authentication`; the code exchange fails as the token
    /// endpoint does. The listener is closed in every case.
    public func run(
        present: @Sendable (URL) -> Void, open: @Sendable (URL) -> Void, refused: @escaping @Sendable (RefusedConnection) -> Void = { _ in }
    ) async throws(AuthError) -> TokenSet {
        let secrets = AuthorizationSecrets()
        let listener = try await LoopbackRedirectListener.start(
            state: secrets.state, redirect: redirect, authorizationURL: { [self] in requestURL(secrets, redirectURI: $0) }, names: pageNames,
            refused: refused)
        let result: Result<AuthorizationCallback, AuthError>
        do throws(AuthError) {
            present(listener.startURL)
            open(listener.startURL)
            result = .success(try await listener.callback(timeout: timeout))
        } catch {
            result = .failure(error)
        }
        await listener.close()
        switch try result.get() {
        case .error(let code, let description):
            let shownCode = TextEscaping.escaped(String(code.prefix(80)))
            let detail = description.map { ": " + TextEscaping.escaped(String($0.prefix(200))) } ?? ""
            throw .authentication("the provider answered \(shownCode)\(detail)", providerCode: shownCode)
        case .code(let code):
            return try await provider.exchange(
                code: code, verifier: secrets.codeVerifier, redirectURI: listener.redirectURI,
                nonce: openIDConnect ? secrets.nonce : nil)
        }
    }
}
