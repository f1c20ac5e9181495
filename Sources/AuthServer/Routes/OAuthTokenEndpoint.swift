// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Hummingbird

/// RFC 6749 token endpoint, `POST /oauth/token` (`application/x-www-form-urlencoded`).
///
/// Grants: `password` (`username`, `password`, optional `scope`), `refresh_token`
/// (`refresh_token`, optional `scope` no wider than granted; rotation as on `/api`), and
/// `client_credentials` (optional `scope`; no refresh token). Every grant requires client
/// authentication, by HTTP Basic (`client_id:client_secret`, each form-urlencoded) or by
/// `client_id`/`client_secret` form fields, not both. Refresh tokens are bound to the client
/// they were issued to. Errors are §5.2 JSON; `invalid_client` is 401 with `WWW-Authenticate`.
struct OAuthTokenEndpoint: Sendable {
    let components: ServerComponents

    /// An early exit with an RFC 6749 error.
    private struct Failure: Error {
        let code: OAuthErrorCode
        let description: String
    }

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
        } catch let failure as Failure {
            return reply(failure)
        } catch let faulted as FaultedReply {
            return faulted.response
        } catch {
            return reply(Failure(code: .serverError, description: AuthServerMessages.internalError))
        }
    }

    /// The reply of an injected fault, passed through unchanged.
    private struct FaultedReply: Error {
        let response: Response
    }

    private func reply(_ failure: Failure) -> Response {
        components.stats.increment(\.oauthFailures)
        let status: HTTPResponse.Status =
            switch failure.code {
            case .invalidClient: .unauthorized
            case .serverError: .internalServerError
            default: .badRequest
            }
        var headers = HTTPFields()
        headers[.init("Pragma")!] = "no-cache"
        if failure.code == .invalidClient {
            headers[.wwwAuthenticate] = #"Basic realm="vault-auth-server""#
        }
        return HTTP.json(OAuthError(error: failure.code, description: failure.description), status: status, headers: headers)
    }

    private func grant(_ request: Request) async throws -> OAuthTokenResponse {
        let form = try await parameters(of: request)
        let clientID = try authenticateClient(request, form: form)
        guard let grantType = form["grant_type"] else {
            throw Failure(code: .invalidRequest, description: "missing parameter: grant_type")
        }
        let scope = form["scope"].flatMap { $0.isEmpty ? nil : $0 }
        switch grantType {
        case "password":
            guard let username = form["username"], let password = form["password"], !username.isEmpty else {
                throw Failure(code: .invalidRequest, description: "missing parameter: username and password are required")
            }
            let result = await components.service.login(login: username, password: password, clientID: clientID, scope: scope)
            return try success(result)
        case "refresh_token":
            if let faulted = await components.refreshFaultReply(oauth: true) {
                throw FaultedReply(response: faulted)
            }
            guard let refreshToken = form["refresh_token"], !refreshToken.isEmpty else {
                components.stats.increment(\.failedRefreshes)
                throw Failure(code: .invalidRequest, description: "missing parameter: refresh_token")
            }
            let result = await components.service.refresh(token: refreshToken, clientID: clientID, requestedScope: scope)
            return try success(result)
        case "client_credentials":
            return try success(await components.service.issueClientToken(clientID: clientID, scope: scope))
        default:
            throw Failure(code: .unsupportedGrantType, description: "unsupported grant_type")
        }
    }

    private func success(_ result: Result<IssuedTokens, AuthFailure>) throws -> OAuthTokenResponse {
        switch result {
        case .success(let issued):
            let remainingMillis = issued.access.expiresAtMillis - WallClock.millis()
            return OAuthTokenResponse(
                accessToken: issued.access.token,
                expiresIn: Int(max(1, (remainingMillis + 999) / 1000)),
                refreshToken: issued.refresh?.token,
                scope: issued.scope)
        case .failure(.internalError):
            throw Failure(code: .serverError, description: AuthServerMessages.internalError)
        case .failure(.invalidScope):
            throw Failure(code: .invalidScope, description: AuthFailure.invalidScope.message)
        case .failure(let failure):
            throw Failure(code: .invalidGrant, description: failure.message)
        }
    }

    /// The form parameters; each may appear once (RFC 6749 §3.2).
    private func parameters(of request: Request) async throws -> [String: String] {
        guard HTTP.mediaType(of: request) == "application/x-www-form-urlencoded" else {
            throw Failure(code: .invalidRequest, description: "content type must be application/x-www-form-urlencoded")
        }
        guard let body = await HTTP.body(of: request, limit: components.configuration.maxBodySize) else {
            throw Failure(code: .invalidRequest, description: AuthServerMessages.bodyTooLarge)
        }
        guard let text = String(validating: body.readableBytesView, as: UTF8.self),
            let pairs = FormURLEncoding.parse(text)
        else {
            throw Failure(code: .invalidRequest, description: "malformed form body")
        }
        var form: [String: String] = [:]
        for pair in pairs {
            guard form[pair.name] == nil else {
                throw Failure(code: .invalidRequest, description: "repeated parameter: \(pair.name)")
            }
            form[pair.name] = pair.value
        }
        return form
    }

    /// The authenticated client id (Basic or form fields; exactly one method).
    private func authenticateClient(_ request: Request, form: [String: String]) throws -> String {
        let authorization = request.headers[values: .authorization]
        let credentials: (id: String, secret: String)
        if !authorization.isEmpty {
            guard form["client_secret"] == nil else {
                throw Failure(code: .invalidRequest, description: "more than one client authentication method")
            }
            guard authorization.count == 1, let basic = Self.basicCredentials(authorization[0]) else {
                throw Failure(code: .invalidClient, description: "client authentication failed")
            }
            if let formID = form["client_id"], formID != basic.id {
                throw Failure(code: .invalidRequest, description: "client_id does not match the authenticated client")
            }
            credentials = basic
        } else if let id = form["client_id"], let secret = form["client_secret"] {
            credentials = (id, secret)
        } else {
            throw Failure(code: .invalidClient, description: "client authentication required")
        }
        guard components.service.clients.authenticate(id: credentials.id, secret: credentials.secret) else {
            throw Failure(code: .invalidClient, description: "client authentication failed")
        }
        return credentials.id
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
