// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Hummingbird

/// RFC 6749 token endpoint, `POST /oauth/token` (`application/x-www-form-urlencoded`).
///
/// Grants: `password` (`username`, `password`, optional `scope`), `refresh_token`
/// (`refresh_token`, optional `scope` no wider than granted; rotation as on `/api`), and
/// `client_credentials` (optional `scope`; no refresh token; confidential clients only),
/// `authorization_code` (`code`, `redirect_uri`, `code_verifier`; RFC 7636 S256) and the
/// device grant (`device_code`, RFC 8628). Tokens for an `openid` scope come with an
/// `id_token`. Confidential clients authenticate by HTTP Basic (`client_id:client_secret`,
/// each form-urlencoded) or by `client_id`/`client_secret` form fields, not both; public
/// clients by `client_id` alone. Refresh tokens are bound to the client
/// they were issued to. Errors are §5.2 JSON; `invalid_client` is 401 with `WWW-Authenticate`.
struct OAuthTokenEndpoint: Sendable {
    let components: ServerComponents

    func add(to router: Router<BasicRequestContext>) {
        router.post("/oauth/token") { request, _ in
            await token(request)
        }
    }

    private func token(_ request: Request) async -> Response {
        do {
            let response = try await grant(request)
            components.stats.increment(\.oauthTokens)
            var headers = HTTPFields()
            headers[.init("Pragma")!] = "no-cache"
            return HTTP.json(response, headers: headers)
        } catch let failure as OAuthFailure {
            return reply(failure)
        } catch let faulted as FaultedReply {
            return faulted.response
        } catch {
            return reply(OAuthFailure(code: .serverError, description: AuthServerMessages.internalError))
        }
    }

    /// The reply of an injected fault, passed through unchanged.
    private struct FaultedReply: Error {
        let response: Response
    }

    private var support: OAuthRequestSupport { OAuthRequestSupport(components: components) }

    private func reply(_ failure: OAuthFailure) -> Response {
        support.reply(failure)
    }

    private func grant(_ request: Request) async throws -> OAuthTokenResponse {
        let form = try await support.parameters(of: request)
        let clientID = try support.authenticateClient(request, form: form)
        guard let grantType = form["grant_type"] else {
            throw OAuthFailure(code: .invalidRequest, description: "missing parameter: grant_type")
        }
        let scope = form["scope"].flatMap { $0.isEmpty ? nil : $0 }
        switch grantType {
        case "password":
            guard let username = form["username"], let password = form["password"], !username.isEmpty else {
                throw OAuthFailure(code: .invalidRequest, description: "missing parameter: username and password are required")
            }
            let result = await components.service.login(login: username, password: password, clientID: clientID, scope: scope)
            return try success(result)
        case "refresh_token":
            if let faulted = await components.refreshFaultReply(oauth: true) {
                throw FaultedReply(response: faulted)
            }
            guard let refreshToken = form["refresh_token"], !refreshToken.isEmpty else {
                components.stats.increment(\.failedRefreshes)
                throw OAuthFailure(code: .invalidRequest, description: "missing parameter: refresh_token")
            }
            let result = await components.service.refresh(token: refreshToken, clientID: clientID, requestedScope: scope)
            return try success(result)
        case "client_credentials":
            guard !components.service.clients.isPublic(clientID) else {
                throw OAuthFailure(code: .unauthorizedClient, description: "public clients may not use client_credentials")
            }
            return try success(await components.service.issueClientToken(clientID: clientID, scope: scope))
        case "authorization_code":
            return try await exchangeCode(form, clientID: clientID)
        case DeviceRoutes.grantType:
            return try await pollDevice(form, clientID: clientID)
        default:
            throw OAuthFailure(code: .unsupportedGrantType, description: "unsupported grant_type")
        }
    }

    private func success(_ result: Result<IssuedTokens, AuthFailure>) throws -> OAuthTokenResponse {
        switch result {
        case .success(let issued):
            let now = WallClock.millis()
            return OAuthTokenResponse(
                accessToken: issued.access.token,
                expiresIn: issued.expiresIn(nowMillis: now),
                refreshToken: issued.refresh?.token,
                scope: issued.scope,
                idToken: issued.idToken,
                refreshExpiresIn: issued.refreshExpiresIn(nowMillis: now))
        case .failure(.internalError):
            throw OAuthFailure(code: .serverError, description: AuthServerMessages.internalError)
        case .failure(.invalidScope):
            throw OAuthFailure(code: .invalidScope, description: AuthFailure.invalidScope.message)
        case .failure(let failure):
            throw OAuthFailure(code: .invalidGrant, description: failure.message)
        }
    }

    /// `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.6): the code is used up
    /// whatever the outcome.
    private func exchangeCode(_ form: [String: String], clientID: String) async throws -> OAuthTokenResponse {
        guard let value = form["code"], !value.isEmpty, let redirectURI = form["redirect_uri"] else {
            throw OAuthFailure(code: .invalidRequest, description: "missing parameter: code and redirect_uri are required")
        }
        guard let code = components.grants.consumeCode(value), code.expiresAtMillis > WallClock.millis() else {
            throw OAuthFailure(code: .invalidGrant, description: "invalid or expired authorization code")
        }
        guard code.clientID == clientID, code.redirectURI == redirectURI else {
            throw OAuthFailure(code: .invalidGrant, description: "the code was issued to another client or redirect_uri")
        }
        switch (code.codeChallenge, form["code_verifier"]) {
        case (nil, nil): break
        case (let challenge?, let verifier?) where PKCE.verify(verifier, challenge: challenge): break
        default: throw OAuthFailure(code: .invalidGrant, description: "code_verifier does not match the code_challenge")
        }
        let result = await components.service.issueAuthorized(user: code.user, clientID: clientID, scope: code.scope, nonce: code.nonce)
        let response = try success(result)
        components.stats.increment(\.codeExchanges)
        return response
    }

    /// `grant_type=urn:ietf:params:oauth:grant-type:device_code` (RFC 8628 §3.4, §3.5).
    private func pollDevice(_ form: [String: String], clientID: String) async throws -> OAuthTokenResponse {
        guard let deviceCode = form["device_code"], !deviceCode.isEmpty else {
            throw OAuthFailure(code: .invalidRequest, description: "missing parameter: device_code")
        }
        components.stats.increment(\.devicePolls)
        let configuration = components.configuration
        let poll = components.grants.poll(
            deviceCode: deviceCode, clientID: clientID, pendingAfterExpiry: configuration.devicePendingAfterExpiry,
            slowDownMillis: Int64((configuration.deviceSlowDownIncrement * 1000).rounded()))
        switch poll {
        case .pending: throw OAuthFailure(code: .authorizationPending, description: "the user has not answered yet")
        case .slowDown: throw OAuthFailure(code: .slowDown, description: "polling too fast; the interval grew")
        case .denied: throw OAuthFailure(code: .accessDenied, description: "the user denied the request")
        case .expired: throw OAuthFailure(code: .expiredToken, description: "the device code expired")
        case .invalid: throw OAuthFailure(code: .invalidGrant, description: "invalid device code")
        case .approved(let user, let clientID, let scope):
            return try success(await components.service.issueAuthorized(user: user, clientID: clientID, scope: scope, nonce: nil))
        }
    }

    /// Decodes `Basic base64(urlencoded(id):urlencoded(secret))`.
    static func basicCredentials(_ header: String) -> (id: String, secret: String)? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let data = Data(base64Encoded: parts[1].trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8),
            let colon = text.firstIndex(of: ":"),
            let id = FormURLEncoding.decode(text[..<colon]),
            let secret = FormURLEncoding.decode(text[text.index(after: colon)...]),
            !id.isEmpty
        else { return nil }
        return (id, secret)
    }
}
