// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Hummingbird

/// The seed backend's JSON API: `/api/register`, `/api/login`, `/api/refresh_tokens`,
/// `/api/get_devs`, plus `/api/stats`.
struct APIRoutes: Sendable {
    let components: ServerComponents

    /// `login`/`password` as sent, before validation.
    private struct LooseAuthBody: Decodable {
        let login: String?
        let password: String?
    }

    func add(to router: Router<BasicRequestContext>) {
        router.post("/api/register") { request, _ in
            await credentialsEndpoint(request) { login, password in
                await components.service.register(login: login, password: password)
            }
        }
        router.post("/api/login") { request, _ in
            await credentialsEndpoint(request) { login, password in
                await components.service.login(login: login, password: password, clientID: nil, scope: nil)
            }
        }
        router.post("/api/refresh_tokens") { request, _ in
            await refreshTokens(request)
        }
        router.get("/api/get_devs") { request, _ in
            await developers(request)
        }
        router.get("/api/stats") { _, _ in
            HTTP.json(components.stats.snapshot())
        }
    }

    /// Shared body handling of register and login.
    private func credentialsEndpoint(
        _ request: Request,
        action: (String, String) async -> Result<IssuedTokens, AuthFailure>
    ) async -> Response {
        guard HTTP.mediaType(of: request) == "application/json" else {
            return HTTP.error(400, AuthServerMessages.unsupportedContentType)
        }
        guard let body = await HTTP.body(of: request, limit: components.configuration.maxBodySize) else {
            return HTTP.error(400, AuthServerMessages.bodyTooLarge)
        }
        let decoded: LooseAuthBody
        do {
            decoded = try JSONDecoder().decode(LooseAuthBody.self, from: Data(body.readableBytesView))
        } catch {
            return HTTP.error(400, AuthServerMessages.malformedJSON)
        }
        guard let login = decoded.login, let password = decoded.password, !login.isEmpty, !password.isEmpty else {
            return HTTP.error(400, AuthServerMessages.missingCredentials)
        }
        switch await action(login, password) {
        case .success(let issued):
            guard let user = issued.apiUser else { return HTTP.error(.internalError) }
            return HTTP.json(user)
        case .failure(let failure):
            return HTTP.error(failure)
        }
    }

    private func refreshTokens(_ request: Request) async -> Response {
        if let faulted = await components.refreshFaultReply(oauth: false) {
            return faulted
        }
        // The body is meant to be empty; it is ignored, but still capped.
        guard await HTTP.body(of: request, limit: components.configuration.maxBodySize) != nil else {
            return HTTP.error(400, AuthServerMessages.bodyTooLarge)
        }
        guard let token = HTTP.bearerToken(of: request) else {
            components.stats.increment(\.failedRefreshes)
            return HTTP.error(.invalidRefreshToken)
        }
        switch await components.service.refresh(token: token, clientID: nil, requestedScope: nil) {
        case .success(let issued):
            guard let tokens = issued.apiTokens else { return HTTP.error(.internalError) }
            return HTTP.json(tokens)
        case .failure(let failure):
            return HTTP.error(failure)
        }
    }

    private func developers(_ request: Request) async -> Response {
        guard let token = HTTP.bearerToken(of: request) else {
            components.stats.increment(\.unauthorized)
            return HTTP.error(.invalidAccessToken)
        }
        switch await components.service.authorize(accessToken: token) {
        case .success:
            return HTTP.json(DeveloperDirectory.all)
        case .failure(let failure):
            return HTTP.error(failure)
        }
    }
}
