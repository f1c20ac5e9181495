// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

@Suite("GET /api/stats", .offThePool)
struct StatsTests {
    @Test("counters follow registrations, logins, refreshes and authorizations exactly")
    func counters() async throws {
        try await withServer(Fixture.configuration) { server, client in
            #expect(try await client.stats() == AuthServerStats())

            let user = try await client.register("jim", "pw").decode(User.self)  // registrations 1
            _ = try await client.register("jim", "pw")  // taken: no count
            _ = try await client.login("jim", "pw")  // logins 1
            _ = try await client.login("jim", "bad")  // failedLogins 1
            _ = try await client.login("ghost", "pw")  // failedLogins 2
            let tokens = try await client.refresh(user.refreshToken).decode(TokensInfo.self)  // refreshes 1
            _ = try await client.refresh(user.refreshToken)  // failedRefreshes 1
            _ = try await client.refresh(nil)  // failedRefreshes 2
            _ = try await client.developers(tokens.accessToken)  // authorized 1
            _ = try await client.developers(tokens.accessToken)  // authorized 2
            _ = try await client.developers("junk")  // unauthorized 1
            _ = try await client.developers(nil)  // unauthorized 2
            _ = try await client.post("/api/login", body: "{")  // bad input: no count

            var expected = AuthServerStats()
            expected.registrations = 1
            expected.logins = 1
            expected.failedLogins = 2
            expected.refreshes = 1
            expected.failedRefreshes = 2
            expected.refreshAttempts = 3
            expected.authorized = 2
            expected.unauthorized = 2
            #expect(try await client.stats() == expected)
            #expect(server.stats == expected)

            let raw = try JSONSerialization.jsonObject(with: try await client.get("/api/stats").body) as? [String: Int]
            for key in ["registrations", "logins", "failedLogins", "refreshes", "failedRefreshes", "authorized", "unauthorized"] {
                #expect(raw?[key] != nil, "missing \(key)")
            }

            server.resetStats()
            #expect(try await client.stats() == AuthServerStats())
        }
    }
}
