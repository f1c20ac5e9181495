// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Logging
import Testing
import VaultAgent
import VaultAgentProtocol
import VaultAuth
import VaultHTTPClient
import VaultStore
import VaultTestSupport
import VaultTesting

let agentUser = "alice"
let agentPassword = "correct-horse-battery-staple-42"
let agentStoreKey = "backend=test\nfile=/nonexistent"

/// A reference server in this process, a transport, a lock directory and a store, for one
/// agent test; everything is torn down when `body` returns or throws.
struct AgentBench: Sendable {
    let server: ReferenceAuthServer
    let url: String
    let transport: AsyncHTTPTransport
    let directory: String
    let store: any SecureStore
    let logs: Recorder<String>

    var account: KeptAccount { KeptAccount(server: url, account: agentUser) }

    /// Logs in as `vault login` does (settings, password and tokens stored).
    @discardableResult
    func login(password: String = agentPassword, into store: (any SecureStore)? = nil) async throws -> TokenSet {
        let session = AuthSession(
            store: store ?? self.store, server: url, account: agentUser, transport: transport,
            configuration: requester)
        return try await session.login(settings: LoginSettings(serverURL: url), password: Secret(password))
    }

    var requester: Requester.Configuration { Requester.Configuration(lock: .directory(directory + "/locks")) }

    /// A configuration for an agent of this bench's store.
    func configuration(
        accounts: [KeptAccount]? = nil, keepAlive: Duration? = nil, tokenFiles: [TokenFileBinding] = [],
        openStore: (@Sendable (Bool) throws(VaultError) -> any SecureStore)? = nil
    ) -> AgentConfiguration {
        let store = self.store
        return AgentConfiguration(
            storeKey: agentStoreKey, openStore: openStore ?? { _ in store }, requester: requester,
            reauthentication: SilentReauthenticator.Policy(coolDown: 300), transport: transport, accounts: accounts,
            keepAlive: keepAlive, tokenFiles: tokenFiles, logger: capturingLogger(logs))
    }

    static var fastTuning: Agent.Tuning {
        var tuning = Agent.Tuning()
        tuning.hardensProcess = false
        tuning.rescanInterval = .milliseconds(500)
        tuning.lockedPoll = .milliseconds(200)
        tuning.firstRetry = .milliseconds(200)
        tuning.maximumRetry = .seconds(1)
        tuning.minimumGap = 0.2
        return tuning
    }

    var stats: AuthServerStats { server.stats }
}

/// Runs `body` with an ``AgentBench`` whose server issues access tokens living `accessTTL`
/// seconds and refresh tokens `refreshTTL` seconds (from their issue: every rotation
/// restarts it, an idle window).
func withAgentBench<T>(
    accessTTL: Double = 60, refreshTTL: Double = 300, store: (@Sendable (String) -> any SecureStore)? = nil,
    _ body: (AgentBench) async throws -> T
) async throws -> T {
    let configuration = AuthServerConfiguration(
        accessTokenLifetime: accessTTL, refreshTokenLifetime: refreshTTL, users: [CredentialPair(name: agentUser, secret: agentPassword)])
    return try await withReferenceServer(configuration) { running in
        try await withTemporaryDirectory("vault-agent") { directory in
            let transport = AsyncHTTPTransport()
            let bench = AgentBench(
                server: running.server, url: running.url, transport: transport, directory: directory,
                store: store?(directory) ?? InMemoryStore(), logs: Recorder())
            let result: Result<T, any Error>
            do {
                result = .success(try await body(bench))
            } catch {
                result = .failure(error)
            }
            await transport.shutdown()
            return try result.get()
        }
    }
}

/// Starts an agent, runs `body`, stops it (also when `body` throws).
func withAgent<T>(
    _ configuration: AgentConfiguration, tuning: Agent.Tuning = AgentBench.fastTuning, _ body: (Agent) async throws -> T
)
    async throws -> T
{
    let agent = Agent(configuration: configuration, tuning: tuning)
    await agent.start()
    let result: Result<T, any Error>
    do {
        result = .success(try await body(agent))
    } catch {
        result = .failure(error)
    }
    await agent.stop()
    return try result.get()
}

/// The fields of a `done` answer, or nil (with the reason recorded in the test's issue).
func doneFields(_ answer: AgentAnswer, sourceLocation: SourceLocation = #_sourceLocation) -> [[UInt8]]? {
    switch answer {
    case .done(let fields): return fields
    case .declined(let reason):
        Issue.record("declined: \(reason)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The decline reason, or nil when the answer was `done`.
func declineReason(_ answer: AgentAnswer) -> String? {
    if case .declined(let reason) = answer { return reason }
    return nil
}

extension Agent {
    nonisolated func token(_ bench: AgentBench, rejected: [UInt8]? = nil) async -> AgentAnswer {
        await answer(.token(store: agentStoreKey, server: bench.url, account: agentUser, rejected: rejected))
    }

    nonisolated func statusJSON() async throws -> [String: Any] {
        let answer = await answer(.status(store: agentStoreKey))
        let fields = try #require(doneFields(answer))
        return try #require(try JSONSerialization.jsonObject(with: Data(fields[0])) as? [String: Any])
    }

    /// The first account of the status, or nil (recording nothing: for polling).
    nonisolated func firstAccount() async -> [String: Any]? {
        guard case .done(let fields) = await answer(.status(store: agentStoreKey)), let text = fields.first,
            let status = try? JSONSerialization.jsonObject(with: Data(text)) as? [String: Any]
        else { return nil }
        return (status["accounts"] as? [[String: Any]])?.first
    }

    nonisolated func accountStatus() async throws -> [String: Any] {
        let accounts = try #require(try await statusJSON()["accounts"] as? [[String: Any]])
        return try #require(accounts.first)
    }
}

/// A logger at `.trace` whose lines land in `lines`.
func capturingLogger(_ lines: Recorder<String>) -> Logger {
    capturingLogger(label: "vault.agent.test") { lines.append($0) }
}
