// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Hummingbird

/// Authorization server metadata (RFC 8414, OpenID Connect Discovery 1.0).
public struct AuthServerMetadata: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case jwksURI = "jwks_uri"
        case endSessionEndpoint = "end_session_endpoint"
        case responseTypesSupported = "response_types_supported"
        case grantTypesSupported = "grant_types_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case subjectTypesSupported = "subject_types_supported"
        case scopesSupported = "scopes_supported"
    }

    /// The server's base URL (`http://127.0.0.1:PORT`), unless a test override names another.
    public var issuer: String
    /// `/oauth/authorize`.
    public var authorizationEndpoint: String
    /// `/oauth/token`.
    public var tokenEndpoint: String
    /// `/oauth/device_authorization`.
    public var deviceAuthorizationEndpoint: String
    /// `/oauth/revoke`.
    public var revocationEndpoint: String
    /// `/oauth/jwks`.
    public var jwksURI: String
    /// `/oauth/logout`.
    public var endSessionEndpoint: String
    /// `["code"]`.
    public var responseTypesSupported: [String]
    /// Every grant of `POST /oauth/token`.
    public var grantTypesSupported: [String]
    /// `["S256"]`.
    public var codeChallengeMethodsSupported: [String]
    /// `["ES256"]`.
    public var idTokenSigningAlgValuesSupported: [String]
    /// `client_secret_basic`, `client_secret_post`, `none` (public clients).
    public var tokenEndpointAuthMethodsSupported: [String]
    /// `["public"]`.
    public var subjectTypesSupported: [String]
    /// `openid`, `email`, `profile`, `offline_access`.
    public var scopesSupported: [String]
}

/// `GET /.well-known/openid-configuration`, `GET /.well-known/oauth-authorization-server`
/// (both ``AuthServerMetadata``), `GET /oauth/jwks` and `GET /oauth/logout` (end session).
struct DiscoveryRoutes: Sendable {
    let components: ServerComponents

    func add(to router: Router<BasicRequestContext>) {
        router.get("/.well-known/openid-configuration") { _, _ in HTTP.json(metadata()) }
        router.get("/.well-known/oauth-authorization-server") { _, _ in HTTP.json(metadata()) }
        router.get("/oauth/jwks") { _, _ in
            components.stats.increment(\.jwksFetches)
            return HTTP.json(components.service.signing.jwks)
        }
        router.get("/oauth/logout") { request, _ in logout(request) }
    }

    /// The metadata, with endpoints under the server's own base URL.
    func metadata() -> AuthServerMetadata {
        let base = components.service.identity.baseURL
        return AuthServerMetadata(
            issuer: components.service.identity.issuer,
            authorizationEndpoint: base + "/oauth/authorize",
            tokenEndpoint: base + "/oauth/token",
            deviceAuthorizationEndpoint: base + "/oauth/device_authorization",
            revocationEndpoint: base + "/oauth/revoke",
            jwksURI: base + "/oauth/jwks",
            endSessionEndpoint: base + "/oauth/logout",
            responseTypesSupported: ["code"],
            grantTypesSupported: ["authorization_code", "refresh_token", "password", "client_credentials", DeviceRoutes.grantType],
            codeChallengeMethodsSupported: ["S256"],
            idTokenSigningAlgValuesSupported: ["ES256"],
            tokenEndpointAuthMethodsSupported: ["client_secret_basic", "client_secret_post", "none"],
            subjectTypesSupported: ["public"],
            scopesSupported: ["openid", "email", "profile", "offline_access"])
    }

    /// OpenID Connect RP-initiated logout: a page saying the session ended, or a 302 to a
    /// loopback `post_logout_redirect_uri` (with `state`).
    private func logout(_ request: Request) -> Response {
        let query = HTMLPage.query(of: request)
        if let target = query["post_logout_redirect_uri"], LoopbackRedirect.isLoopback(target) {
            var location = target
            if let state = query["state"] {
                location += (target.contains("?") ? "&" : "?") + "state=" + HTMLPage.queryEncode(state)
            }
            return HTMLPage.redirect(to: location)
        }
        return HTMLPage.page(title: "Signed out", body: "<p>You are signed out of vault-auth-server.</p>")
    }
}
