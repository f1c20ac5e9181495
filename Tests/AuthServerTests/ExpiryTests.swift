// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

/// The assertions here hold however slowly a loaded machine runs: a reply received before
/// an expiry must be a success, anything sent after it must be an expiry error, and issued
/// expiries lie between "before the request" and "after the reply" plus the lifetime.
@Suite("Token lifetimes", .offThePool)
struct ExpiryTests {
    /// Sleeps until `deadline` (Unix ms) plus a margin; bounded to 60 s, a bound for a
    /// wrong deadline only (a 10-s bound once cut the wait for a 16 s lifetime short, and the
    /// refresh sent "after" the expiry was, rightly, still accepted).
    private func sleep(until deadline: Int64, margin: Int64 = 100) async throws {
        let wait = min(max(deadline + margin - nowMillis(), 0), 60_000)
        try await Task.sleep(for: .milliseconds(wait))
    }

    /// Lifetimes short enough for a test, long enough for a loaded 2-core machine (an 8 s
    /// refresh lifetime was too short for a refresh after the 2 s access token at a load of
    /// 16; the test's sleeps cost no core).
    @Test("2 s access and 16 s refresh lifetimes: expiry messages, refresh works in between")
    func shortLifetimes() async throws {
        let configuration = AuthServerConfiguration(accessTokenLifetime: 2, refreshTokenLifetime: 16)
        try await withServer(configuration) { _, client in
            let before = nowMillis()
            let user = try await client.register("kim", "pw").decode(User.self)
            let after = nowMillis()
            #expect(user.accessTokenExpire >= before + 2_000 - 1 && user.accessTokenExpire <= after + 2_000 + 1)
            #expect(user.refreshTokenExpire >= before + 16_000 - 1 && user.refreshTokenExpire <= after + 16_000 + 1)

            let early = try await client.developers(user.accessToken)
            if nowMillis() < user.accessTokenExpire {
                #expect(early.status == 200)
            }

            try await sleep(until: user.accessTokenExpire)
            expectError(try await client.developers(user.accessToken), status: 401, message: AuthServerMessages.accessTokenExpired)

            // The refresh token outlives the access token.
            let refreshed = try await client.refresh(user.refreshToken)
            guard nowMillis() < user.refreshTokenExpire else {
                Issue.record("the machine was too slow to check a refresh inside a 16 s refresh lifetime")
                return
            }
            #expect(refreshed.status == 200, "\(refreshed.text)")
            let tokens = try refreshed.decode(TokensInfo.self)

            try await sleep(until: tokens.refreshTokenExpire)
            expectError(try await client.refresh(tokens.refreshToken), status: 401, message: AuthServerMessages.refreshTokenExpired)
            expectError(try await client.developers(tokens.accessToken), status: 401, message: AuthServerMessages.accessTokenExpired)
            // Logging in again works.
            #expect(try await client.login("kim", "pw").status == 200)
        }
    }

    @Test("fractional lifetimes are honoured")
    func fractionalLifetime() async throws {
        let configuration = AuthServerConfiguration(accessTokenLifetime: 0.3, refreshTokenLifetime: 0.6)
        try await withServer(configuration) { _, client in
            let before = nowMillis()
            let user = try await client.register("lou", "pw").decode(User.self)
            let after = nowMillis()
            #expect(user.accessTokenExpire >= before + 300 - 1 && user.accessTokenExpire <= after + 300 + 1)
            #expect(user.refreshTokenExpire >= before + 600 - 1 && user.refreshTokenExpire <= after + 600 + 1)
            try await sleep(until: user.refreshTokenExpire)
            expectError(try await client.refresh(user.refreshToken), status: 401, message: AuthServerMessages.refreshTokenExpired)
            expectError(try await client.developers(user.accessToken), status: 401, message: AuthServerMessages.accessTokenExpired)
        }
    }
}
