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

/// A stopping agent spends no refresh token: the process exits right after the stop, and a
/// refresh it started then would be lost between the provider's answer and the store.
@Suite("Agent stop (reference server)", .offThePool)
struct AgentStopTests {
    /// Tokens that are stale at once (the lifetime is shorter than the leeway), so any
    /// token source asked for them refreshes.
    static let staleAtOnce: Double = 2

    @Test("after the stop, a request for an account with no keeper is declined and spends nothing")
    func noKeeperIsMadeAfterTheStop() async throws {
        try await withAgentBench(accessTTL: Self.staleAtOnce) { bench in
            let tokens = try await bench.login()
            let agent = Agent(configuration: bench.configuration(accounts: []), tuning: AgentBench.fastTuning)
            await agent.start()
            await agent.stop()
            let reason = try #require(declineReason(await agent.token(bench)))
            #expect(reason.contains("the agent is stopping"), "\(reason)")
            #expect(bench.stats.refreshes == 0)
            let stored = try await AccountItems(store: bench.store, server: bench.url, account: agentUser).loadTokens()
            #expect(stored?.refreshToken == tokens.refreshToken, "the stored tokens are still the login's")
        }
    }

    @Test("after the stop, a kept account whose source was dropped makes no new one and spends nothing")
    func noSourceIsMadeAfterTheStop() async throws {
        try await withAgentBench(accessTTL: Self.staleAtOnce) { bench in
            try await bench.login()
            let agent = Agent(configuration: bench.configuration(accounts: [bench.account]), tuning: AgentBench.fastTuning)
            await agent.start()
            // The keeper refreshes the stale tokens once, then holds a source.
            #expect(await eventually { bench.stats.refreshes >= 1 })
            // A lock drops the source; the store opens again from the "key cache" at once.
            #expect(await agent.answer(.lock) == .done([]))
            await agent.stop()
            let before = bench.stats.refreshes
            let reason = try #require(declineReason(await agent.token(bench)))
            #expect(reason.contains("the agent is stopping"), "\(reason)")
            try await Task.sleep(for: .milliseconds(600))  // past a rescan interval: nothing restarts
            #expect(bench.stats.refreshes == before)
            let status = try await agent.accountStatus()
            #expect(status["kept"] as? Bool == false)
        }
    }
}
