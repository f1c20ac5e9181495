// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Hummingbird

/// An early exit with an RFC 6749 §5.2 error, shared by the `/oauth` JSON endpoints.
struct OAuthFailure: Error {
    let code: OAuthErrorCode
    let description: String
}

/// Form bodies, client authentication and error replies of the `/oauth` JSON endpoints
/// (token, device authorization, revocation).
struct OAuthRequestSupport: Sendable {
    let components: ServerComponents

    /// The RFC 6749 §5.2 reply; `invalid_client` is 401 with `WWW-Authenticate`. Counts
    /// `oauthFailures` when `counted`.
    func reply(_ failure: OAuthFailure, counted: Bool = true) -> Response {
        if counted { components.stats.increment(\.oauthFailures) }
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

    /// The form parameters; each may appear once (RFC 6749 §3.2).
    func parameters(of request: Request) async throws -> [String: String] {
        guard HTTP.mediaType(of: request) == "application/x-www-form-urlencoded" else {
            throw OAuthFailure(code: .invalidRequest, description: "content type must be application/x-www-form-urlencoded")
        }
        guard let body = await HTTP.body(of: request, limit: components.configuration.maxBodySize) else {
            throw OAuthFailure(code: .invalidRequest, description: AuthServerMessages.bodyTooLarge)
        }
        guard let text = String(validating: body.readableBytesView, as: UTF8.self),
            let pairs = FormURLEncoding.parse(text)
        else {
            throw OAuthFailure(code: .invalidRequest, description: "malformed form body")
        }
        var form: [String: String] = [:]
        for pair in pairs {
            guard form[pair.name] == nil else {
                throw OAuthFailure(code: .invalidRequest, description: "repeated parameter: \(pair.name)")
            }
            form[pair.name] = pair.value
        }
        return form
    }

    /// The authenticated client id: Basic or `client_id`/`client_secret` form fields (exactly
    /// one method) for confidential clients; `client_id` alone for public clients (§3.2.1).
    func authenticateClient(_ request: Request, form: [String: String]) throws -> String {
        let authorization = request.headers[values: .authorization]
        let credentials: (id: String, secret: String)
        if !authorization.isEmpty {
            guard form["client_secret"] == nil else {
                throw OAuthFailure(code: .invalidRequest, description: "more than one client authentication method")
            }
            guard authorization.count == 1, let basic = OAuthTokenEndpoint.basicCredentials(authorization[0]) else {
                throw OAuthFailure(code: .invalidClient, description: "client authentication failed")
            }
            if let formID = form["client_id"], formID != basic.id {
                throw OAuthFailure(code: .invalidRequest, description: "client_id does not match the authenticated client")
            }
            credentials = basic
        } else if let id = form["client_id"], let secret = form["client_secret"] {
            credentials = (id, secret)
        } else if let id = form["client_id"], components.service.clients.isPublic(id) {
            return id
        } else {
            throw OAuthFailure(code: .invalidClient, description: "client authentication required")
        }
        guard components.service.clients.authenticate(id: credentials.id, secret: credentials.secret) else {
            throw OAuthFailure(code: .invalidClient, description: "client authentication failed")
        }
        return credentials.id
    }
}
