// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultAgent
import VaultAgentProtocol
import VaultAuth
import VaultStore
import VaultSync
import VaultTestSupport
import VaultTesting

/// A lock (`vault lock`, a client's `Lock`) and a new passphrase (`vault passwd`) drop the
/// agent's store and every key in it, but never the only copy of a rotated refresh token.
@Suite("vault agent, locked and re-keyed", .offThePool)
struct AgentLockTests {
    /// The agent with tokens the store refused (a rotated refresh token held only in memory).
    struct Unsaved {
        let faulty: FaultyStore
        let before: TokenSet
    }

    /// Attack review 48, finding 1: a lock dropped every token source, and with it tokens
    /// the store had refused; after the unlock the agent refreshed from the stored, spent
    /// refresh token and the account needed a person.
    @Test(
        "tokens the store refused survive a lock and a new passphrase, and are stored after the unlock; none is spent twice",
        arguments: [AgentRequest.lock, .rekeyed(store: agentStoreKey)])
    func unsavedTokensSurviveALock(_ drop: AgentRequest) async throws {
        let faulty = FaultyStore()
        let locked = Locked(false)
        try await withAgentBench(accessTTL: 2, store: { _ in faulty }) { bench in
            try await bench.login()
            let configuration = bench.configuration(accounts: [bench.account]) { afterLock throws(VaultError) in
                if afterLock, locked.withLock({ $0 }) { throw .locked("locked (test)") }
                return KeyHoldingView(faulty)
            }
            try await withAgent(configuration) { agent in
                let unsaved = try await refusedRefresh(agent, bench, faulty)
                locked.withLock { $0 = true }
                #expect(await agent.answer(drop) == .done([]))
                faulty.faults = []
                try await Task.sleep(for: .milliseconds(500))
                #expect(try await stored(bench, faulty) == unsaved.before, "written while locked: \(bench.logs.all)")
                locked.withLock { $0 = false }
                await expectStoredAfterUnlock(agent, bench) {
                    (try? await stored(bench, faulty))?.accessToken != unsaved.before.accessToken
                }
                let refreshes = bench.stats.refreshes
                #expect(await eventually { bench.stats.refreshes >= refreshes + 2 }, "\(bench.logs.all)")
            }
        }
    }

    /// Attack review 48, finding 5: a source dropped at a lock kept its store and key, and
    /// its stop wrote the vault after the lock.
    @Test("after a lock, nothing is written with the dropped key: not later, not at the stop")
    func nothingIsWrittenAfterALock() async throws {
        let faulty = FaultyStore()
        try await withAgentBench(accessTTL: 2, store: { _ in faulty }) { bench in
            try await bench.login()
            let configuration = bench.configuration(accounts: [bench.account]) { afterLock throws(VaultError) in
                if afterLock { throw .locked("locked (test)") }
                return KeyHoldingView(faulty)
            }
            let agent = Agent(configuration: configuration, tuning: AgentBench.fastTuning)
            await agent.start()
            let unsaved = try await refusedRefresh(agent, bench, faulty)
            #expect(await agent.answer(.lock) == .done([]))
            faulty.faults = []
            let saves = faulty.calls(.save)
            try await Task.sleep(for: .milliseconds(500))
            await agent.stop()
            #expect(faulty.calls(.save) == saves, "the store was written after the lock: \(bench.logs.all)")
            #expect(try await stored(bench, faulty) == unsaved.before)
            #expect(bench.logs.all.contains { $0.contains("tokens the store refused: they are lost") }, "\(bench.logs.all)")
        }
    }

    /// Attack review 49, finding 1: a save of refreshed tokens waiting for the vault file's
    /// lock when the agent locked wrote the file with the dropped key once the lock came free.
    @Test("a save waiting for the vault file's lock at a lock writes nothing; the tokens are stored after the unlock")
    func aWaitingSaveWritesNothingAfterALock() async throws {
        let locked = Locked(false)
        let open: @Sendable (String) -> EncryptedFileStore = { directory in
            EncryptedFileStore(
                path: directory + "/vault.db", passphrase: .fixed(Secret("pass")), kdf: KDFParameters(log2N: 10), lockTimeout: .seconds(30))
        }
        try await withAgentBench(accessTTL: 2, store: { open($0) }) { bench in
            try await bench.login()
            let configuration = bench.configuration(accounts: [bench.account]) { afterLock throws(VaultError) in
                if afterLock, locked.withLock({ $0 }) { throw .locked("locked (test)") }
                return open(bench.directory)
            }
            try await withAgent(configuration) { agent in
                #expect(doneFields(await agent.token(bench)) != nil)
                let path = bench.directory + "/vault.db"
                let before = try Data(contentsOf: URL(fileURLWithPath: path))
                let held = try FileLock(path: path + ".lock", timeout: .seconds(1))
                let refreshes = bench.stats.refreshes
                let rotated = await eventually { bench.stats.refreshes > refreshes }
                try #require(rotated, "the agent did not refresh: \(bench.logs.all)")
                locked.withLock { $0 = true }
                #expect(await agent.answer(.lock) == .done([]))
                held.release()
                try await Task.sleep(for: .seconds(1))
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "written with the dropped key: \(bench.logs.all)")
                locked.withLock { $0 = false }
                await expectStoredAfterUnlock(agent, bench) { (try? Data(contentsOf: URL(fileURLWithPath: path))) != before }
            }
        }
    }

    @Test("tokens carried over a lock are dropped, not written back, when the account was logged out meanwhile")
    func carriedTokensYieldToALogout() async throws {
        let faulty = FaultyStore()
        try await withAgentBench(accessTTL: 2, store: { _ in faulty }) { bench in
            try await bench.login()
            let configuration = bench.configuration(accounts: [bench.account]) { _ in KeyHoldingView(faulty) }
            try await withAgent(configuration) { agent in
                _ = try await refusedRefresh(agent, bench, faulty)
                #expect(await agent.answer(.lock) == .done([]))
                faulty.faults = []
                // `vault logout` while the agent is locked (under the account's lock, as always), then its notice.
                let session = AuthSession(
                    store: faulty, server: bench.url, account: agentUser, transport: bench.transport, configuration: bench.requester)
                _ = try await session.logout(forgetPassword: false, revoke: false)
                _ = await agent.answer(.changed(store: agentStoreKey, server: bench.url, account: agentUser))
                _ = await agent.token(bench)  // opens the store again
                try await Task.sleep(for: .seconds(1))
                #expect(try await stored(bench, faulty) == nil, "the logout was undone: \(bench.logs.all.joined(separator: "\n"))")
                #expect(declineReason(await agent.token(bench)) != nil)
            }
        }
    }

    /// Makes the store refuse token saves until the agent has refreshed once: its new
    /// tokens are then held only in memory. Returns the tokens still stored.
    func refusedRefresh(_ agent: Agent, _ bench: AgentBench, _ faulty: FaultyStore) async throws -> Unsaved {
        #expect(doneFields(await agent.token(bench)) != nil)
        let before = try #require(try await stored(bench, faulty))
        faulty.faults = [.init(.save, kind: .tokens, .fail(.backendUnavailable("disk full (test)")))]
        let refreshes = bench.stats.refreshes
        let rotated = await eventually { bench.stats.refreshes > refreshes }
        try #require(rotated, "the agent did not refresh: \(bench.logs.all)")
        try #require(try await stored(bench, faulty) == before)
        return Unsaved(faulty: faulty, before: before)
    }

    /// After the unlock: the agent opens again, the tokens it carried get stored (`stored`
    /// turns true), no refresh token was offered twice and no silent re-login was needed.
    func expectStoredAfterUnlock(_ agent: Agent, _ bench: AgentBench, _ stored: () async -> Bool) async {
        #expect(doneFields(await agent.token(bench)) != nil, "the agent did not open again: \(bench.logs.all)")
        #expect(await eventually(stored), "the carried tokens were never stored: \(bench.logs.all)")
        #expect(bench.stats.failedRefreshes == 0, "a spent refresh token was offered again: \(bench.logs.all)")
        #expect(bench.stats.logins == 1, "the agent needed the silent re-login: \(bench.logs.all)")
    }

    func stored(_ bench: AgentBench, _ store: any SecureStore) async throws -> TokenSet? {
        try await AccountItems(store: store, server: bench.url, account: agentUser).loadTokens()
    }
}
