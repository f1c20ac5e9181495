// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

@Suite("Fault injection and in-process test controls", .offThePool)
struct FaultAndControlTests {
    @Test("status500: a JSON 500, and the presented refresh token is not consumed")
    func status500() async throws {
        try await withServer { server, client in
            let user = try await client.register("max", "pw").decode(User.self)
            server.faults.set(.status500)
            expectError(try await client.refresh(user.refreshToken), status: 500, message: AuthServerMessages.internalError)
            expectError(try await client.refresh(user.refreshToken), status: 500, message: AuthServerMessages.internalError)
            #expect(server.stats.faultedRefreshes == 2)
            #expect(server.stats.refreshes == 0 && server.stats.failedRefreshes == 0)
            server.faults.reset()
            #expect(try await client.refresh(user.refreshToken).status == 200)
            #expect(server.stats.refreshAttempts == 3)
        }
    }

    @Test("setAccessTokenLifetime: tokens issued afterwards live that long; a refresh's too")
    func accessTokenLifetime() async throws {
        try await withServer { server, client in
            let before = try await client.register("ida", "pw").decode(User.self)
            server.setAccessTokenLifetime(600)
            let refreshed = try await client.refresh(before.refreshToken).decode(TokensInfo.self)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            #expect(refreshed.accessTokenExpire - now > 590_000 && refreshed.accessTokenExpire - now <= 600_000)
            #expect(before.accessTokenExpire - now < 590_000, "issued before the change: its own lifetime")
        }
    }

    @Test("garbage: 200 with a body that is not JSON")
    func garbage() async throws {
        try await withServer { server, client in
            let user = try await client.register("ned", "pw").decode(User.self)
            server.faults.set(.garbage)
            let reply = try await client.refresh(user.refreshToken)
            #expect(reply.status == 200)
            #expect((try? JSONSerialization.jsonObject(with: reply.body)) == nil)
            #expect((try? reply.decode(TokensInfo.self)) == nil)
        }
    }

    @Test("hang: no reply before the client's timeout; bounded by hangSeconds")
    func hang() async throws {
        try await withServer { server, client in
            let user = try await client.register("oli", "pw").decode(User.self)
            server.faults.set(.hang, hangSeconds: 1.5)
            var impatient = client
            impatient.timeout = 0.4
            await #expect(throws: RawHTTPError.timeout) {
                _ = try await impatient.refresh(user.refreshToken)
            }
            // A patient client gets the 500 after the hang.
            let start = ContinuousClock.now
            let reply = try await client.refresh(user.refreshToken)
            #expect(ContinuousClock.now - start >= .milliseconds(1_300))
            #expect(reply.status == 500)
            // Other endpoints are unaffected.
            #expect(try await client.developers(user.accessToken).status == 200)
        }
    }

    @Test("stop() does not wait for hanging requests")
    func stopDuringHang() async throws {
        try await withReferenceServer { running in  // stopped here, and again (a no-op) at the end
            let (server, port) = (running.server, running.port)
            let client = APIClient(port: port, timeout: 20)
            let user = try await client.register("pat", "pw").decode(User.self)
            server.faults.set(.hang, hangSeconds: 30)
            let pending = Task { try? await client.refresh(user.refreshToken) }
            try await Task.sleep(for: .milliseconds(300))
            let start = ContinuousClock.now
            await server.stop()
            // Hang guards: the stop does not wait out the 30 s hang.
            #expect(ContinuousClock.now - start < Sanitizer.scaled(.seconds(10)))
            _ = await pending.value
            #expect(ContinuousClock.now - start < Sanitizer.scaled(.seconds(20)))
            await #expect(throws: RawHTTPError.self) {
                _ = try await RawHTTP.request(port: port, method: "GET", path: "/api/stats", timeout: 2)
            }
        }
    }

    @Test("a counted fault reverts to normal by itself")
    func countedFault() async throws {
        try await withServer { server, client in
            let user = try await client.register("quin", "pw").decode(User.self)
            server.faults.set(.status500, count: 2)
            #expect(try await client.refresh(user.refreshToken).status == 500)
            #expect(server.faults.setting.remaining == 1)
            #expect(try await client.refresh(user.refreshToken).status == 500)
            #expect(server.faults.setting.mode == .normal)
            #expect(try await client.refresh(user.refreshToken).status == 200)
        }
    }

    @Test("revoking refresh tokens kills every session's refresh token; login still works")
    func revokeRefreshTokens() async throws {
        try await withServer { server, client in
            let first = try await client.register("rae", "pw").decode(User.self)
            let second = try await client.login("rae", "pw").decode(User.self)
            #expect(server.revokeRefreshTokens(login: "rae") == 2)
            expectError(try await client.refresh(first.refreshToken), status: 401, message: AuthServerMessages.invalidRefreshToken)
            expectError(try await client.refresh(second.refreshToken), status: 401, message: AuthServerMessages.invalidRefreshToken)
            // Access tokens are untouched.
            #expect(try await client.developers(first.accessToken).status == 200)
            let third = try await client.login("rae", "pw").decode(User.self)
            #expect(try await client.refresh(third.refreshToken).status == 200)
            #expect(server.revokeRefreshTokens(login: "nobody") == nil)
        }
    }

    @Test("revoking access tokens rejects the old ones, new ones work")
    func revokeAccessTokens() async throws {
        try await withServer { server, client in
            let user = try await client.register("sam", "pw").decode(User.self)
            #expect(server.revokeAccessTokens(login: "sam"))
            expectError(try await client.developers(user.accessToken), status: 401, message: AuthServerMessages.invalidAccessToken)
            let tokens = try await client.refresh(user.refreshToken).decode(TokensInfo.self)
            #expect(try await client.developers(tokens.accessToken).status == 200)
            #expect(!server.revokeAccessTokens(login: "nobody"))
        }
    }

    @Test("changing a password: old one fails, new one works")
    func setPassword() async throws {
        try await withServer(Fixture.configuration) { server, client in
            #expect(server.setPassword(login: Fixture.user.name, password: "new"))
            expectError(try await client.login(Fixture.user.name, Fixture.user.secret), status: 401, message: AuthServerMessages.wrongLoginOrPassword)
            #expect(try await client.login(Fixture.user.name, "new").status == 200)
            #expect(!server.setPassword(login: "nobody", password: "x"))
            #expect(server.addUser(login: "tim", password: "pw"))
            #expect(!server.addUser(login: "tim", password: "pw"))
            #expect(try await client.login("tim", "pw").status == 200)
        }
    }
}

@Suite("Test-control endpoints (--test-controls)", .offThePool)
struct TestControlEndpointTests {
    private var configuration: AuthServerConfiguration {
        var configuration = Fixture.configuration
        configuration.testControls = true
        return configuration
    }

    @Test("set fault mode over HTTP")
    func faultEndpoint() async throws {
        try await withServer(configuration) { server, client in
            let user = try await client.login(Fixture.user.name, Fixture.user.secret).decode(User.self)
            let set = try await client.post("/api/test/fault", body: #"{"mode":"status500","count":1}"#)
            #expect(set.status == 200)
            #expect(server.faults.setting.mode == .status500)
            #expect(try await client.refresh(user.refreshToken).status == 500)
            #expect(try await client.refresh(user.refreshToken).status == 200)

            #expect(try await client.post("/api/test/fault", body: #"{"mode":"garbage"}"#).status == 200)
            #expect(server.faults.setting.mode == .garbage)
            #expect(try await client.post("/api/test/fault", body: #"{"mode":"hang","hangSeconds":2.5}"#).status == 200)
            #expect(server.faults.setting == RefreshFaults.Setting(mode: .hang, remaining: nil, hangSeconds: 2.5))
            #expect(try await client.post("/api/test/fault", body: #"{"mode":"normal"}"#).status == 200)
            #expect(server.faults.setting.mode == .normal)
            expectError(
                try await client.post("/api/test/fault", body: #"{"mode":"explode"}"#), status: 400, message: AuthServerMessages.malformedJSON)
        }
    }

    @Test("revoke refresh/access tokens and set password over HTTP")
    func userEndpoints() async throws {
        try await withServer(configuration) { _, client in
            let login = Fixture.user.name
            let user = try await client.login(login, Fixture.user.secret).decode(User.self)

            let revoked = try await client.post("/api/test/revoke_refresh_tokens", body: #"{"login":"\#(login)"}"#)
            #expect(revoked.status == 200)
            #expect(revoked.text.contains(#""revoked":1"#))
            expectError(try await client.refresh(user.refreshToken), status: 401, message: AuthServerMessages.invalidRefreshToken)

            #expect(try await client.post("/api/test/revoke_access_tokens", body: #"{"login":"\#(login)"}"#).status == 200)
            expectError(try await client.developers(user.accessToken), status: 401, message: AuthServerMessages.invalidAccessToken)

            #expect(try await client.post("/api/test/set_password", body: #"{"login":"\#(login)","password":"fresh"}"#).status == 200)
            #expect(try await client.login(login, "fresh").status == 200)

            expectError(try await client.post("/api/test/revoke_refresh_tokens", body: #"{"login":"ghost"}"#), status: 404, message: "unknown login")
            expectError(
                try await client.post("/api/test/set_password", body: #"{"login":"ghost","password":"x"}"#), status: 404, message: "unknown login")
            expectError(try await client.post("/api/test/set_password", body: "{"), status: 400, message: AuthServerMessages.malformedJSON)

            #expect(try await client.post("/api/test/reset_stats").status == 200)
            #expect(try await client.stats() == AuthServerStats())
        }
    }
}
