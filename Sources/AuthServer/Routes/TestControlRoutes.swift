// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Hummingbird

/// Test-only controls under `/api/test/`, served only with ``AuthServerConfiguration/testControls``
/// (`--test-controls`): the refresh fault switch (``RefreshFaults``), token revocation, a new
/// password, the stats, the refresh log (``RefreshLog``), signing-key rotation, the issuer, Sign in
/// with Apple codes and device-grant decisions. Bodies and replies are JSON; unknown logins give
/// 404. Each route's body and reply: docs/reference-server.md, "Test controls".
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

    private struct IssuerBody: Codable {
        let issuer: String?
    }

    private struct IDTokenFaultBody: Codable {
        let fault: IDTokenFault
    }

    private struct KidReply: Encodable {
        let kid: String
    }

    private struct DeviceDecisionBody: Codable {
        enum CodingKeys: String, CodingKey {
            case userCode = "user_code"
            case login
            case decision
        }

        let userCode: String
        let login: String?
        let decision: String
    }

    func add(to router: Router<BasicRequestContext>) {
        router.post("/api/test/rotate_signing_key") { _, _ in
            HTTP.json(KidReply(kid: await components.service.signing.rotate()))
        }
        router.post("/api/test/issuer") { request, _ in
            await withBody(request, as: IssuerBody.self) { body in
                components.service.identity.setIssuerOverride(body.issuer)
                return HTTP.json(IssuerBody(issuer: components.service.identity.issuer))
            }
        }
        router.post("/api/test/device_decision") { request, _ in
            await withBody(request, as: DeviceDecisionBody.self) { body in
                let decision: DeviceDecision
                if body.decision == "allow" {
                    guard let user = body.login.flatMap(components.service.users.userIdentity(login:)) else {
                        return HTTP.error(404, "unknown login")
                    }
                    decision = .approved(user)
                } else {
                    decision = .denied
                }
                guard components.grants.decide(userCode: body.userCode, decision: decision) else {
                    return HTTP.error(404, "unknown or answered user_code")
                }
                return HTTP.json(["user_code": body.userCode])
            }
        }
        router.post("/api/test/apple_code") { request, _ in
            await withBody(request, as: AppleCodeRequest.self) { body in
                let refusal = AppleCodeRefusal.noClient
                guard let apple = components.apple else { return HTTP.error(refusal.status, refusal.message) }
                switch apple.grants.mint(body, clientIDs: apple.clients.ids, users: components.service.users) {
                case .success(let code): return HTTP.json(["code": code])
                case .failure(let refusal): return HTTP.error(refusal.status, refusal.message)
                }
            }
        }
        router.post("/api/test/id_token_fault") { request, _ in
            await withBody(request, as: IDTokenFaultBody.self) { body in
                components.service.idTokenFault.current = body.fault
                return HTTP.json(body)
            }
        }
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
        router.post("/api/test/refresh_log") { _, _ in
            HTTP.json(components.service.refreshLog.drain())
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
