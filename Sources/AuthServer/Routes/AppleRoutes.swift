// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Hummingbird

/// `{"error"}`: Sign in with Apple's error reply (400, or 500 for `server_error`).
struct AppleErrorReply: Codable, Sendable, Equatable {
    /// The error code.
    var error: OAuthErrorCode
}

/// Sign in with Apple's three server endpoints under `/apple` (`auth/token`, `auth/keys`,
/// `auth/revoke`), served only when ``AuthServerConfiguration/appleClients`` names a client.
/// Requests are `application/x-www-form-urlencoded` with `client_id` and `client_secret` (a JWT
/// the client signs ES256, see ``AppleClientDirectory``); errors are `{"error"}`, 400 (a bad
/// client secret too: `invalid_client`) or 500 for `server_error`. A refresh does not rotate the
/// refresh token. Each endpoint's fields and errors: docs/reference-server.md, "Sign in with Apple".
struct AppleRoutes: Sendable {
    let components: ServerComponents
    let apple: AppleService

    /// An early exit with an error reply.
    private struct Failure: Error {
        let code: OAuthErrorCode
    }

    func add(to router: Router<BasicRequestContext>) {
        router.post("/apple/auth/token") { request, _ in
            await token(request)
        }
        router.get("/apple/auth/keys") { _, _ in
            components.stats.increment(\.jwksFetches)
            return HTTP.json(apple.signing.jwks)
        }
        router.post("/apple/auth/revoke") { request, _ in
            await revoke(request)
        }
    }

    private func token(_ request: Request) async -> Response {
        do {
            let form = try await parameters(of: request)
            guard let grantType = form["grant_type"], !grantType.isEmpty else { throw Failure(code: .invalidRequest) }
            let clientID = try await authenticateClient(form)
            let result: Result<IssuedTokens, AppleService.Failure>
            switch grantType {
            case "authorization_code":
                if let faulted = await components.refreshFaultReply(shape: .apple, isRefresh: false) { return faulted }
                guard let code = form["code"], !code.isEmpty else { throw Failure(code: .invalidRequest) }
                result = await apple.exchange(code: code, clientID: clientID, redirectURI: form["redirect_uri"])
            case "refresh_token":
                if let faulted = await components.refreshFaultReply(shape: .apple) { return faulted }
                guard let refreshToken = form["refresh_token"], !refreshToken.isEmpty else {
                    components.stats.increment(\.failedRefreshes)
                    throw Failure(code: .invalidRequest)
                }
                result = await apple.refresh(token: refreshToken, clientID: clientID)
            default:
                throw Failure(code: .unsupportedGrantType)
            }
            switch result {
            case .success(let issued):
                return tokenReply(issued, withRefreshToken: grantType == "authorization_code")
            case .failure(.invalidGrant):
                throw Failure(code: .invalidGrant)
            case .failure(.serverError):
                throw Failure(code: .serverError)
            }
        } catch let failure as Failure {
            return reply(failure.code)
        } catch {
            return reply(.serverError)
        }
    }

    private func revoke(_ request: Request) async -> Response {
        do {
            let form = try await parameters(of: request)
            guard let token = form["token"], !token.isEmpty else { throw Failure(code: .invalidRequest) }
            let clientID = try await authenticateClient(form)
            await apple.revoke(token: token, clientID: clientID)
            var headers = HTTPFields()
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers)
        } catch let failure as Failure {
            return reply(failure.code)
        } catch {
            return reply(.serverError)
        }
    }

    /// `{"access_token","token_type","expires_in","refresh_token"?,"refresh_expires_in"?,"id_token"}`
    /// (`refresh_expires_in` with a refresh idle timeout, also for a refresh: the use moved the deadline).
    private func tokenReply(_ issued: IssuedTokens, withRefreshToken: Bool) -> Response {
        let now = WallClock.millis()
        let body = OAuthTokenResponse(
            accessToken: issued.access.token, expiresIn: issued.expiresIn(nowMillis: now),
            refreshToken: withRefreshToken ? issued.refresh?.token : nil, scope: nil, idToken: issued.idToken,
            refreshExpiresIn: issued.refreshExpiresIn(nowMillis: now))
        return HTTP.json(body, headers: Self.noCache)
    }

    /// The form fields (see ``OAuthRequestSupport/parameters(of:)``); any problem is `invalid_request`.
    private func parameters(of request: Request) async throws -> [String: String] {
        do {
            return try await OAuthRequestSupport(components: components).parameters(of: request)
        } catch {
            throw Failure(code: .invalidRequest)
        }
    }

    /// The client id once `client_secret` proved it: `invalid_request` when either field is
    /// missing, `invalid_client` when the secret is not valid.
    private func authenticateClient(_ form: [String: String]) async throws -> String {
        guard let clientID = form["client_id"], !clientID.isEmpty, let secret = form["client_secret"], !secret.isEmpty else {
            throw Failure(code: .invalidRequest)
        }
        guard await apple.clients.authenticate(clientID: clientID, secret: secret) else {
            throw Failure(code: .invalidClient)
        }
        return clientID
    }

    private static var noCache: HTTPFields {
        var headers = HTTPFields()
        headers[.init("Pragma")!] = "no-cache"
        return headers
    }

    private func reply(_ code: OAuthErrorCode) -> Response {
        HTTP.json(AppleErrorReply(error: code), status: code == .serverError ? .internalServerError : .badRequest, headers: Self.noCache)
    }
}
