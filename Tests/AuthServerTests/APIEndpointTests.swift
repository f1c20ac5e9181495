// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

@Suite("Reference API endpoints", .offThePool)
struct APIEndpointTests {
    @Test("register returns a User with millisecond expiries; a taken login gives 409")
    func register() async throws {
        try await withServer { _, client in
            let before = nowMillis()
            let reply = try await client.register("bob", "pw")
            #expect(reply.status == 200)
            #expect(reply.headers["content-type"]?.hasPrefix("application/json") == true)
            let user = try reply.decode(User.self)
            #expect(user.id >= 1)
            #expect(!user.accessToken.isEmpty && !user.refreshToken.isEmpty)
            #expect(user.accessToken != user.refreshToken)
            #expect(user.accessTokenExpire >= before + 59_000 && user.accessTokenExpire <= nowMillis() + 61_000)
            #expect(user.refreshTokenExpire >= before + 299_000 && user.refreshTokenExpire <= nowMillis() + 301_000)

            expectError(try await client.register("bob", "other"), status: 409, message: AuthServerMessages.loginAlreadyExists)
            let second = try await client.register("carol", "pw").decode(User.self)
            #expect(second.id != user.id)
        }
    }

    @Test("login: pre-registered and registered users; wrong password and unknown login give 401")
    func login() async throws {
        try await withServer(Fixture.configuration) { _, client in
            let reply = try await client.login(Fixture.user.name, Fixture.user.secret)
            #expect(reply.status == 200)
            let user = try reply.decode(User.self)
            #expect(try await client.developers(user.accessToken).status == 200)

            expectError(try await client.login(Fixture.user.name, "wrong"), status: 401, message: AuthServerMessages.wrongLoginOrPassword)
            expectError(try await client.login("nobody", "pw"), status: 401, message: AuthServerMessages.wrongLoginOrPassword)

            _ = try await client.register("dave", "pw1")
            #expect(try await client.login("dave", "pw1").status == 200)
            expectError(try await client.login("dave", "pw2"), status: 401, message: AuthServerMessages.wrongLoginOrPassword)
        }
    }

    @Test("get_devs returns the developers for a valid access token only")
    func developers() async throws {
        try await withServer { _, client in
            let user = try await client.register("eve", "pw").decode(User.self)
            let reply = try await client.developers(user.accessToken)
            #expect(reply.status == 200)
            let developers = try reply.decode([Developer].self)
            #expect(developers.count >= 3)
            #expect(Set(developers.map(\.id)).count == developers.count)
            #expect(developers.allSatisfy { !$0.name.isEmpty && !$0.department.isEmpty })

            expectError(try await client.developers(nil), status: 401, message: AuthServerMessages.invalidAccessToken)
            expectError(try await client.developers("not-a-jwt"), status: 401, message: AuthServerMessages.invalidAccessToken)
            // Tampered signature: change its first character. (Not the last one: in
            // base64url the last character of a 32-byte signature carries two padding
            // bits, so "A" -> "B" there can leave the decoded signature unchanged.)
            var characters = Array(user.accessToken)
            let signatureStart = characters.lastIndex(of: ".")! + 1
            characters[signatureStart] = characters[signatureStart] == "A" ? "B" : "A"
            let tampered = String(characters)
            expectError(try await client.developers(tampered), status: 401, message: AuthServerMessages.invalidAccessToken)
            // Not a Bearer header.
            let basic = try await RawHTTP.request(
                port: client.port, method: "GET", path: "/api/get_devs", headers: [("Authorization", "Basic \(user.accessToken)")])
            expectError(basic, status: 401, message: AuthServerMessages.invalidAccessToken)
        }
    }

    @Test("refresh rotates: the new pair works, the used refresh token is dead")
    func refreshRotation() async throws {
        try await withServer { server, client in
            let user = try await client.register("fay", "pw").decode(User.self)
            let reply = try await client.refresh(user.refreshToken)
            #expect(reply.status == 200)
            let tokens = try reply.decode(TokensInfo.self)
            #expect(tokens.refreshToken != user.refreshToken)
            #expect(tokens.accessToken != user.accessToken)
            #expect(tokens.accessTokenExpire > nowMillis())
            #expect(try await client.developers(tokens.accessToken).status == 200)

            // Second use of the same refresh token fails.
            expectError(try await client.refresh(user.refreshToken), status: 401, message: AuthServerMessages.invalidRefreshToken)
            // The rotated one works once.
            let next = try await client.refresh(tokens.refreshToken)
            #expect(next.status == 200)
            expectError(try await client.refresh(tokens.refreshToken), status: 401, message: AuthServerMessages.invalidRefreshToken)
            #expect(server.liveRefreshTokenCount(login: "fay") == 1)

            expectError(try await client.refresh(nil), status: 401, message: AuthServerMessages.invalidRefreshToken)
            expectError(try await client.refresh("garbage"), status: 401, message: AuthServerMessages.invalidRefreshToken)
        }
    }

    @Test("concurrent uses of one refresh token: exactly one wins")
    func concurrentRefresh() async throws {
        try await withServer { server, client in
            let user = try await client.register("gus", "pw").decode(User.self)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<12 {
                    group.addTask { try await client.refresh(user.refreshToken).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 401 }.count == 11)
            #expect(server.stats.refreshes == 1)
            #expect(server.stats.failedRefreshes == 11)
        }
    }

    @Test("an access token is never a refresh token, and vice versa")
    func tokenKindsAreNotInterchangeable() async throws {
        try await withServer { _, client in
            let user = try await client.register("hal", "pw").decode(User.self)
            expectError(try await client.developers(user.refreshToken), status: 401, message: AuthServerMessages.invalidAccessToken)
            expectError(try await client.refresh(user.accessToken), status: 401, message: AuthServerMessages.invalidRefreshToken)
            // The refresh token was not consumed by the failed attempts.
            #expect(try await client.refresh(user.refreshToken).status == 200)
        }
    }

    @Test("tokens of another server instance are rejected")
    func foreignTokens() async throws {
        let foreign = try await withServer { _, client in
            try await client.register("ivy", "pw").decode(User.self)
        }
        try await withServer { _, client in
            _ = try await client.register("ivy", "pw")
            expectError(try await client.developers(foreign.accessToken), status: 401, message: AuthServerMessages.invalidAccessToken)
            expectError(try await client.refresh(foreign.refreshToken), status: 401, message: AuthServerMessages.invalidRefreshToken)
        }
    }

    @Test("unknown paths and wrong methods get JSON errors")
    func unknownRoutes() async throws {
        try await withServer { _, client in
            let missing = try await client.get("/api/nope")
            expectError(missing, status: 404, message: AuthServerMessages.notFound)
            let wrongMethod = try await client.get("/api/login")
            #expect([404, 405].contains(wrongMethod.status))
            #expect((try? wrongMethod.decode(ErrorResponse.self))?.code == wrongMethod.status)
            // Test controls are off by default.
            expectError(try await client.post("/api/test/reset_stats"), status: 404, message: AuthServerMessages.notFound)
        }
    }
}
