// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Hummingbird

/// Test-only controls, served only with ``AuthServerConfiguration/testControls``
/// (`--test-controls`). Bodies are JSON; replies are JSON; unknown logins give 404.
///
/// - `POST /api/test/fault` `{"mode":"normal"|"status500"|"garbage"|"hang"|"stallBody", "count":Int?, "hangSeconds":Double?}`
///   -> 200 `{"mode","remaining"?,"hangSeconds"}` (see ``RefreshFaults``)
/// - `POST /api/test/revoke_refresh_tokens` `{"login"}` -> 200 `{"login","revoked":Int}`
/// - `POST /api/test/revoke_access_tokens` `{"login"}` -> 200 `{"login"}`
/// - `POST /api/test/set_password` `{"login","password"}` -> 200 `{"login"}`
/// - `POST /api/test/reset_stats` -> 200 the (zeroed) stats
struct TestControlRoutes: Sendable {
    let components: ServerComponents

    private struct FaultRequest: Decodable {
        let mode: RefreshFaultMode
        let count: Int?
        let hangSeconds: Double?
    }

    private struct LoginRequest: Decodable {
        let login: String
        let password: String?
    }

    private struct LoginReply: Encodable {
        let login: String
        let revoked: Int?
    }

    func add(to router: Router<BasicRequestContext>) {
        router.post("/api/test/fault") { request, _ in
            await withBody(request, as: FaultRequest.self) { fault in
                components.faults.set(fault.mode, count: fault.count, hangSeconds: fault.hangSeconds ?? 30)
                return HTTP.json(components.faults.setting)
            }
        }
        router.post("/api/test/revoke_refresh_tokens") { request, _ in
            await withBody(request, as: LoginRequest.self) { body in
                guard let revoked = components.service.users.revokeRefreshTokens(login: body.login) else {
                    return HTTP.error(404, "unknown login")
                }
                return HTTP.json(LoginReply(login: body.login, revoked: revoked))
            }
        }
        router.post("/api/test/revoke_access_tokens") { request, _ in
            await withBody(request, as: LoginRequest.self) { body in
                guard components.service.users.revokeAccessTokens(login: body.login) else {
                    return HTTP.error(404, "unknown login")
                }
                return HTTP.json(LoginReply(login: body.login, revoked: nil))
            }
        }
        router.post("/api/test/set_password") { request, _ in
            await withBody(request, as: LoginRequest.self) { body in
                guard let password = body.password, !password.isEmpty else {
                    return HTTP.error(400, AuthServerMessages.missingCredentials)
                }
                guard components.service.users.setPassword(login: body.login, password: password) else {
                    return HTTP.error(404, "unknown login")
                }
                return HTTP.json(LoginReply(login: body.login, revoked: nil))
            }
        }
        router.post("/api/test/reset_stats") { _, _ in
            components.stats.reset()
            return HTTP.json(components.stats.snapshot())
        }
    }

    private func withBody<T: Decodable>(_ request: Request, as type: T.Type, _ action: (T) async -> Response) async -> Response {
        guard let body = await HTTP.body(of: request, limit: components.configuration.maxBodySize) else {
            return HTTP.error(400, AuthServerMessages.bodyTooLarge)
        }
        guard let decoded = try? JSONDecoder().decode(T.self, from: Data(body.readableBytesView)) else {
            return HTTP.error(400, AuthServerMessages.malformedJSON)
        }
        return await action(decoded)
    }
}
