// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultAgent
import VaultAgentProtocol
import VaultAuth
import VaultStore
import VaultTestSupport
import VaultTesting

/// The agent told that the user changed an account's items (`changed`, which `logout`,
/// `remove` and `login` send): the store decides what it keeps.
@Suite("vault agent, told of a change", .offThePool)
struct AgentStoreChangeTests {
    /// Attack review 48, finding 3: any `changed` dropped the account's source, and with it
    /// tokens the store had refused, the only copy of the rotated refresh token; the next
    /// refresh spent the old one again and the account needed a person.
    @Test("a change that leaves the stored tokens as they were keeps the agent's unsaved tokens; they are stored later, none is spent twice")
    func unsavedTokensSurviveAChangeThatLeftThem() async throws {
        let faulty = FaultyStore()
        try await withAgentBench(accessTTL: 2, store: { _ in faulty }) { bench in
            try await bench.login()
            try await withAgent(bench.configuration(accounts: [bench.account])) { agent in
                #expect(doneFields(await agent.token(bench)) != nil)
                let before = try #require(try await AccountItems(store: faulty, server: bench.url, account: agentUser).loadTokens())
                faulty.faults = [.init(.save, kind: .tokens, .fail(.backendUnavailable("disk full (test)")))]
                let refreshes = bench.stats.refreshes
                let rotated = await eventually(limit: .seconds(Sanitizer.scaled(20)), every: .milliseconds(50)) { bench.stats.refreshes > refreshes }
                #expect(rotated, "the agent did not refresh: \(bench.logs.all)")
                // What `vault remove` of another item of the account sends; the store still holds `before`.
                #expect(await agent.answer(.changed(store: agentStoreKey, server: bench.url, account: agentUser)) == .done([]))
                faulty.faults = []
                let stored = await eventually(limit: .seconds(Sanitizer.scaled(20)), every: .milliseconds(50)) {
                    let now = try? await AccountItems(store: faulty, server: bench.url, account: agentUser).loadTokens()
                    return now.map { $0.accessToken != before.accessToken } ?? false
                }
                #expect(stored, "the unsaved tokens were never stored: \(bench.logs.all)")
                let moreRefreshes = bench.stats.refreshes
                #expect(
                    await eventually(limit: .seconds(Sanitizer.scaled(20)), every: .milliseconds(50)) { bench.stats.refreshes >= moreRefreshes + 2 },
                    "\(bench.logs.all)")
                #expect(bench.stats.failedRefreshes == 0, "a spent refresh token was offered again: \(bench.logs.all)")
                #expect(bench.stats.logins == 1, "the agent needed the silent re-login: \(bench.logs.all)")
            }
        }
    }

}
