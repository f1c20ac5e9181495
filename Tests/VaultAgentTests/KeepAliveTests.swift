// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultAgent
import VaultAgentProtocol
import VaultAuth
import VaultStore
import VaultTestSupport

/// The agent keeps accounts alive: in-process agents answering directly, against the
/// reference server in this process with short token lifetimes.
@Suite("Agent keep-alive (reference server)", .serialized, .offThePool)
struct KeepAliveTests {
    @Test("nobody calls for three refresh-token windows: the agent kept the session, no login beyond the first")
    func keepsTheSessionAcrossIdleWindows() async throws {
        try await withAgentBench(accessTTL: 2, refreshTTL: 6) { bench in
            try await bench.login()
            try await withAgent(bench.configuration()) { agent in
                try await Task.sleep(for: .seconds(19))  // three 6 s windows without a call
                let fields = try #require(doneFields(await agent.token(bench)))
                #expect(fields.count == 3)
                let expiry = try #require(Int(String(decoding: fields[1], as: UTF8.self)))
                #expect(expiry > Int(Date().timeIntervalSince1970) - 1)
                #expect(bench.stats.logins == 1, "the first login only")
                #expect(bench.stats.failedRefreshes == 0)
                #expect(bench.stats.refreshes >= 6, "refreshed ahead all along")
                let status = try await agent.accountStatus()
                #expect(status["state"] as? String == "kept")
                #expect(status["last_error"] is NSNull)
            }
        }
    }

    @Test("a long-lived access token, a short refresh-token window: refreshed at two thirds of the window, the session survives")
    func keepsTheRefreshWindow() async throws {
        try await withAgentBench(accessTTL: 60, refreshTTL: 6) { bench in
            try await bench.login()
            try await withAgent(bench.configuration()) { agent in
                try await Task.sleep(for: .seconds(13))
                #expect(bench.stats.refreshes >= 2, "refreshed every 4 s although the access token was fresh")
                #expect(bench.stats.refreshes <= 5)
                #expect(bench.stats.failedRefreshes == 0)
                let held = try #require(doneFields(await agent.token(bench)))
                let replaced = try #require(doneFields(await agent.token(bench, rejected: held[0])))
                #expect(String(decoding: replaced[2], as: UTF8.self) == "refreshed", "the refresh token is alive")
                #expect(bench.stats.logins == 1)
            }
        }
    }

    @Test("many concurrent token requests, and a second agent on the same store: one refresh per access-token lifetime")
    func oneRefreshPerLifetime() async throws {
        try await withAgentBench(accessTTL: 2, refreshTTL: 60) { bench in
            try await bench.login()
            let configuration = bench.configuration()
            try await withAgent(configuration) { first in
                try await withAgent(configuration) { second in
                    let started = ContinuousClock.now
                    let answers = await withTaskGroup(of: [AgentAnswer].self) { group in
                        for index in 0..<16 {
                            let agent = index.isMultiple(of: 2) ? first : second
                            group.addTask {
                                var answers: [AgentAnswer] = []
                                while ContinuousClock.now - started < .seconds(6) {
                                    answers.append(await agent.token(bench))
                                    try? await Task.sleep(for: .milliseconds(5))
                                }
                                return answers
                            }
                        }
                        var all: [AgentAnswer] = []
                        for await some in group { all += some }
                        return all
                    }
                    let elapsed = ContinuousClock.now - started
                    let declined = answers.compactMap(declineReason)
                    #expect(declined.isEmpty, "\(declined.prefix(3))")
                    #expect(answers.count > 100)
                    // The agents plan a refresh at half of a 2 s lifetime (the leeway's cap):
                    // one per second at most, whichever of the two agents makes it.
                    let seconds = Double(elapsed.components.seconds) + 1
                    #expect(bench.stats.refreshes <= Int(seconds) + 2, "refreshes: \(bench.stats.refreshes) in \(seconds) s")
                    #expect(bench.stats.refreshes >= 3)
                    #expect(bench.stats.failedRefreshes == 0, "no refresh token was spent twice")
                    #expect(bench.stats.logins == 1)
                    let tokens = Set(
                        answers.compactMap { answer -> [UInt8]? in
                            if case .done(let fields) = answer { return fields[0] }
                            return nil
                        })
                    #expect(tokens.count >= 3, "the served token moved on with the refreshes")
                }
            }
        }
    }

    @Test("a rejected token is replaced once; a rejected token that was already replaced gets the current one")
    func rejectedTokenReplaced() async throws {
        try await withAgentBench(accessTTL: 60) { bench in
            try await bench.login()
            try await withAgent(bench.configuration()) { agent in
                let first = try #require(doneFields(await agent.token(bench)))
                #expect(String(decoding: first[2], as: UTF8.self) == "held")
                let replaced = try #require(doneFields(await agent.token(bench, rejected: first[0])))
                #expect(replaced[0] != first[0])
                #expect(String(decoding: replaced[2], as: UTF8.self) == "refreshed")
                let again = try #require(doneFields(await agent.token(bench, rejected: first[0])))
                #expect(again[0] == replaced[0])
                #expect(bench.stats.refreshes == 1)
            }
        }
    }

    @Test("needs a person: reported once, the token file removed, a bounded number of server calls; a new login is kept again")
    func needsAPersonIsReportedNotRetried() async throws {
        try await withAgentBench(accessTTL: 2, refreshTTL: 60) { bench in
            let first = try await bench.login()
            let file = bench.directory + "/token"
            let configuration = bench.configuration(tokenFiles: [TokenFileBinding(path: file, account: bench.account)])
            try await withAgent(configuration) { agent in
                #expect(await eventually { FileManager.default.fileExists(atPath: file) })
                // The session dies and the stored password no longer works: only a person can help.
                _ = bench.server.revokeRefreshTokens(login: agentUser)
                _ = bench.server.setPassword(login: agentUser, password: "a-new-password-9")
                #expect(await eventually { await agent.firstAccount()?["state"] as? String == "needs login" })
                #expect(!FileManager.default.fileExists(atPath: file), "the token file is removed, not left stale")
                let status = try await agent.accountStatus()
                let lastError = try #require(status["last_error"] as? String)
                #expect(lastError.contains("rejected"))
                #expect(status["next_refresh_at"] is NSNull)
                let calls = bench.stats.refreshAttempts + bench.stats.failedLogins + bench.stats.logins
                try await Task.sleep(for: .seconds(3))  // the access token expires meanwhile
                for _ in 0..<20 { #expect(declineReason(await agent.token(bench)) != nil) }
                #expect(bench.stats.refreshAttempts + bench.stats.failedLogins + bench.stats.logins == calls, "no retry loop")
                #expect(bench.stats.failedLogins == 1)
                let reported = bench.logs.all.filter { $0.contains("needs a person to log in again (") }
                #expect(reported.count == 1, "\(reported)")
                #expect(bench.logs.all.contains { $0.contains("removed the token file") })
                #expect(!FileManager.default.fileExists(atPath: file))

                // A person logs in again (another process): the agent notices and keeps the account again.
                try await bench.login(password: "a-new-password-9")
                #expect(await eventually { await agent.firstAccount()?["state"] as? String == "kept" })
                #expect(await eventually { FileManager.default.fileExists(atPath: file) })
                #expect(doneFields(await agent.token(bench)) != nil)
            }
            let secrets = [first.accessToken, first.refreshToken].compactMap { $0?.utf8String }
            #expect(!bench.logs.all.contains { line in secrets.contains { line.contains($0) } }, "no token is logged")
            #expect(!bench.logs.all.contains { $0.contains(agentPassword) || $0.contains("a-new-password-9") })
        }
    }

    @Test("transient failures: retried with a bounded backoff, the expired token's file removed, then recovered")
    func transientFailuresBackOff() async throws {
        try await withAgentBench(accessTTL: 2, refreshTTL: 60) { bench in
            try await bench.login()
            let file = bench.directory + "/token"
            let configuration = bench.configuration(tokenFiles: [TokenFileBinding(path: file, account: bench.account)])
            try await withAgent(configuration) { agent in
                #expect(await eventually { FileManager.default.fileExists(atPath: file) })
                bench.server.faults.set(.status500)
                try await Task.sleep(for: .seconds(5))
                let status = try await agent.accountStatus()
                #expect(status["state"] as? String == "kept", "a 500 does not need a person")
                #expect((status["last_error"] as? String)?.contains("500") == true)
                #expect(status["next_refresh_at"] is String)
                #expect(!FileManager.default.fileExists(atPath: file), "the expired token's file is removed")
                // Backoff 0.2 s doubling to 1 s (the test's tuning): about 8 tries in 5 s, never a tight loop.
                #expect(bench.stats.faultedRefreshes >= 2)
                #expect(bench.stats.faultedRefreshes <= 12, "\(bench.stats.faultedRefreshes) tries")
                #expect(bench.stats.logins == 1)

                bench.server.faults.reset()
                #expect(await eventually { await agent.firstAccount()?["last_error"] is NSNull })
                #expect(await eventually { FileManager.default.fileExists(atPath: file) })
                #expect(doneFields(await agent.token(bench)) != nil)
            }
        }
    }

    @Test("a provider that hangs holds up neither another account's refreshes nor its answers")
    func deadProviderIsolated() async throws {
        try await withAgentBench(accessTTL: 2, refreshTTL: 60) { bench in
            let other = AuthServerConfiguration(
                accessTokenLifetime: 2, refreshTokenLifetime: 60, users: [CredentialPair(name: agentUser, secret: agentPassword)])
            try await withReferenceServer(other) { running in
                try await bench.login()
                let session = AuthSession(
                    store: bench.store, server: running.url, account: agentUser, transport: bench.transport, configuration: bench.requester)
                try await session.login(settings: LoginSettings(serverURL: running.url), password: Secret(agentPassword))
                try await withAgent(bench.configuration()) { agent in
                    #expect(await eventually { (try? await agent.statusJSON()["accounts"] as? [Any])?.count == 2 })
                    bench.server.faults.set(.hang, hangSeconds: 8)
                    let before = running.server.stats.refreshes
                    let started = ContinuousClock.now
                    var tokens: Set<[UInt8]> = []
                    while ContinuousClock.now - started < .seconds(5) {
                        let asked = ContinuousClock.now
                        let answer = await agent.answer(.token(store: agentStoreKey, server: running.url, account: agentUser, rejected: nil))
                        // Not held by the 8-s hang of the refresh under way (a hang guard).
                        #expect(ContinuousClock.now - asked < Sanitizer.scaled(.seconds(4)))
                        if let fields = doneFields(answer) { tokens.insert(fields[0]) }
                        try await Task.sleep(for: .milliseconds(50))
                    }
                    #expect(running.server.stats.refreshes - before >= 3, "the other account is still refreshed ahead")
                    #expect(tokens.count >= 3)
                }
            }
        }
    }

    @Test("accounts are found by the rescan: a new login is kept, a logout dropped")
    func rescanFollowsLoginsAndLogouts() async throws {
        try await withAgentBench { bench in
            try await withAgent(bench.configuration()) { agent in
                #expect(try await (agent.statusJSON()["accounts"] as? [Any])?.isEmpty == true)
                try await bench.login()
                #expect(await eventually { await agent.firstAccount()?["kept"] as? Bool == true })
                let session = AuthSession(store: bench.store, server: bench.url, account: agentUser, transport: bench.transport)
                try await session.logout(forgetPassword: true, revoke: false)
                #expect(try await eventually { try await (agent.statusJSON()["accounts"] as? [Any])?.isEmpty == true })
            }
        }
    }
}
