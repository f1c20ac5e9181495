// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Hummingbird

/// The authorization endpoint (RFC 6749 §4.1, RFC 7636, RFC 8252): `GET /oauth/authorize`
/// shows a login and consent form, `POST /oauth/authorize` answers it.
///
/// An unknown client or a `redirect_uri` other than `http://127.0.0.1:PORT/callback` gets an
/// HTML error page, never a redirect. Other errors redirect with `error` and `state`: a
/// `response_type` other than `code`, a public client without an S256 `code_challenge`, a
/// `code_challenge_method` other than `S256`. Allow with the right password redirects with
/// `code` and `state`; Deny with `error=access_denied`; a wrong password shows the form again.
struct AuthorizeRoutes: Sendable {
    let components: ServerComponents

    /// The parameters of an authorization request.
    private struct AuthorizationRequest {
        var responseType: String?
        var clientID: String?
        var redirectURI: String?
        var state: String?
        var codeChallenge: String?
        var codeChallengeMethod: String?
        var scope: String?
        var nonce: String?

        init(_ lookup: (String) -> String?) {
            responseType = lookup("response_type")
            clientID = lookup("client_id")
            redirectURI = lookup("redirect_uri")
            state = lookup("state")
            codeChallenge = lookup("code_challenge").flatMap { $0.isEmpty ? nil : $0 }
            codeChallengeMethod = lookup("code_challenge_method").flatMap { $0.isEmpty ? nil : $0 }
            scope = lookup("scope").flatMap { $0.isEmpty ? nil : $0 }
            nonce = lookup("nonce").flatMap { $0.isEmpty ? nil : $0 }
        }

        var hiddenFields: [(String, String?)] {
            [
                ("response_type", responseType), ("client_id", clientID), ("redirect_uri", redirectURI), ("state", state),
                ("code_challenge", codeChallenge), ("code_challenge_method", codeChallengeMethod), ("scope", scope),
                ("nonce", nonce),
            ]
        }
    }

    /// Why a request is refused: with a page, or by a redirect to the client.
    private enum Refusal: Error {
        case page(String)
        case redirect(String)
    }

    func add(to router: Router<BasicRequestContext>) {
        router.get("/oauth/authorize") { request, _ in
            let query = HTMLPage.query(of: request)
            let authorization = AuthorizationRequest { query[$0] }
            if let refused = check(authorization) { return refused }
            return form(authorization, error: nil)
        }
        router.post("/oauth/authorize") { request, _ in
            guard let fields = await HTMLPage.form(of: request, limit: components.configuration.maxBodySize) else {
                return HTMLPage.error("unreadable form")
            }
            let authorization = AuthorizationRequest { fields[$0] }
            if let refused = check(authorization) { return refused }
            return await answer(authorization, fields: fields)
        }
    }

    /// The reply refusing `request`, or `nil` when it is acceptable.
    private func check(_ request: AuthorizationRequest) -> Response? {
        guard let clientID = request.clientID, components.service.clients.contains(clientID) else {
            return HTMLPage.error("unknown client_id")
        }
        guard let redirectURI = request.redirectURI, LoopbackRedirect.isAcceptedCallback(redirectURI) else {
            return HTMLPage.error("redirect_uri must be http://127.0.0.1:PORT/callback")
        }
        guard request.responseType == "code" else {
            return redirect(request, error: .unsupportedResponseType, description: "response_type must be code")
        }
        if request.codeChallenge != nil || request.codeChallengeMethod != nil {
            guard request.codeChallengeMethod == "S256", let challenge = request.codeChallenge, challenge.count == 43 else {
                return redirect(request, error: .invalidRequest, description: "code_challenge_method must be S256")
            }
        } else if components.service.clients.isPublic(clientID) {
            return redirect(request, error: .invalidRequest, description: "public clients must send a S256 code_challenge")
        }
        return nil
    }

    /// Allow (with credentials) or Deny.
    private func answer(_ request: AuthorizationRequest, fields: [String: String]) async -> Response {
        guard fields["decision"] == "allow" else {
            components.stats.increment(\.authorizationDenials)
            return redirect(request, error: .accessDenied, description: "the user denied the request")
        }
        guard let login = fields["login"], let password = fields["password"],
            let user = components.service.users.authenticate(login: login, password: password)
        else {
            components.stats.increment(\.failedLogins)
            return form(request, error: AuthServerMessages.wrongLoginOrPassword)
        }
        guard let clientID = request.clientID, let redirectURI = request.redirectURI else { return HTMLPage.error("bad request") }
        let lifetime = Int64((components.configuration.authorizationCodeLifetime * 1000).rounded())
        let code = components.grants.issueCode(
            AuthorizationCode(
                clientID: clientID, redirectURI: redirectURI, codeChallenge: request.codeChallenge, nonce: request.nonce,
                scope: request.scope, user: user, expiresAtMillis: WallClock.millis() + lifetime))
        components.stats.increment(\.authorizations)
        return HTMLPage.redirect(to: location(request, ["code": code]))
    }

    private func redirect(_ request: AuthorizationRequest, error: OAuthErrorCode, description: String) -> Response {
        HTMLPage.redirect(to: location(request, ["error": error.rawValue, "error_description": description]))
    }

    /// The redirect URI with `parameters` and `state` in its query.
    private func location(_ request: AuthorizationRequest, _ parameters: [String: String]) -> String {
        var pairs = parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        if let state = request.state { pairs.append(("state", state)) }
        let query = pairs.map { "\($0.0)=\(HTMLPage.queryEncode($0.1))" }.joined(separator: "&")
        return (request.redirectURI ?? "") + "?" + query
    }

    /// The login and consent form.
    private func form(_ request: AuthorizationRequest, error: String?) -> Response {
        let client = HTMLPage.escape(request.clientID ?? "")
        let scope = HTMLPage.escape(request.scope ?? "(none)")
        let message = HTMLPage.errorLine(error)
        let body = """
            \(message)<p>The application <b>\(client)</b> asks for access (scope: \(scope)).</p>
            <form method="post" action="/oauth/authorize">
            \(HTMLPage.hiddenFields(request.hiddenFields))
            \(HTMLPage.credentialsAndDecision)
            </form>
            """
        return HTMLPage.page(title: "Sign in to vault-auth-server", body: body)
    }
}
