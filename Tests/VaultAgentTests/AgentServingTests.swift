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

/// What the agent answers besides keep-alive: other stores, status, load, lock, token files.
@Suite("Agent answers (reference server)", .offThePool)
struct AgentServingTests {
    @Test("a request naming another store is declined; ping is always answered")
    func anotherStoreDeclined() async throws {
        try await withAgentBench { bench in
            try await bench.login()
            try await withAgent(bench.configuration()) { agent in
                let other = "backend=file\nfile=/elsewhere"
                for request: AgentRequest in [
                    .token(store: other, server: bench.url, account: agentUser, rejected: nil),
                    .load(store: other, server: bench.url, account: agentUser), .status(store: other),
                    .changed(store: other, server: bench.url, account: agentUser), .rekeyed(store: other),
                ] {
                    #expect(declineReason(await agent.answer(request)) == "the agent serves another store")
                }
                #expect(await agent.answer(.ping) == .done([Array(Agent.versionLine.utf8)]))
                #expect(bench.stats.refreshes == 0)
            }
        }
    }

    @Test("status: the agent, locked, and each account with its dates, last error and state (nulls spelled out)")
    func statusShape() async throws {
        try await withAgentBench(accessTTL: 60) { bench in
            try await bench.login()
            try await withAgent(bench.configuration()) { agent in
                let status = try await agent.statusJSON()
                #expect(Set(status.keys) == ["agent", "locked", "accounts"])
                #expect(
                    status["agent"] as? String == Agent.versionLine && Agent.versionLine.hasPrefix("vault-agent 0.")
                        && Agent.versionLine.hasSuffix(" (protocol 1)"))
                #expect(status["locked"] as? Bool == false)
                // The keeper's first turn (it reads the tokens and plans) runs on its own task.
                #expect(await eventually { await agent.firstAccount()?["next_refresh_at"] is String })
                let account = try await agent.accountStatus()
                #expect(
                    Set(account.keys) == ["server", "account", "kept", "next_refresh_at", "last_refresh_at", "last_error", "state"])
                #expect(account["server"] as? String == bench.url)
                #expect(account["account"] as? String == agentUser)
                #expect(account["kept"] as? Bool == true)
                #expect(account["last_error"] is NSNull)
                #expect(account["state"] as? String == "kept")
                let next = try #require(account["next_refresh_at"] as? String)
                let last = try #require(account["last_refresh_at"] as? String)
                let nextDate = try #require(ISO8601DateFormatter().date(from: next))
                let lastDate = try #require(ISO8601DateFormatter().date(from: last))
                // 75 % of a 60 s token, but never later than the expiry less the 10 s leeway.
                #expect(abs(nextDate.timeIntervalSince(lastDate) - 45) <= 2)
            }
        }
    }

    @Test("load answers the stored secret and label; a missing item is declined")
    func loadAnswersTheItem() async throws {
        try await withAgentBench { bench in
            try bench.store.save(Credential(server: "db.example.com", account: "app", secret: Secret("s3cret"), label: "the db"))
            try await withAgent(bench.configuration()) { agent in
                let fields = try #require(doneFields(await agent.answer(.load(store: agentStoreKey, server: "db.example.com", account: "app"))))
                #expect(fields == [Array("s3cret".utf8), Array("the db".utf8)])
                #expect(declineReason(await agent.answer(.load(store: agentStoreKey, server: "db.example.com", account: "nobody"))) != nil)
            }
        }
    }

    @Test("an account that is not logged in is declined with the reason, without a keeper")
    func notLoggedInDeclined() async throws {
        try await withAgentBench { bench in
            try await withAgent(bench.configuration()) { agent in
                let reason = try #require(declineReason(await agent.token(bench)))
                #expect(reason.contains("not logged in"))
                #expect(try await (agent.statusJSON()["accounts"] as? [Any])?.isEmpty == true)
            }
        }
    }

    @Test("lock drops the keys: token and load are declined until the key cache opens the vault again")
    func lockDropsTheKeys() async throws {
        let cache = MemoryKeyCache()
        let policy = KeyCachePolicy(cache: cache, lifetime: 600)
        let kdf = KDFParameters(log2N: 10)
        try await withAgentBench(
            accessTTL: 60,
            store: { directory in
                EncryptedFileStore(path: directory + "/vault", passphrase: .fixed(Secret("pass")), kdf: kdf, keyCache: policy)
            }
        ) { bench in
            let path = bench.directory + "/vault"
            try await bench.login()
            try bench.store.save(Credential(server: "db.example.com", account: "app", secret: Secret("s3cret")))
            let configuration = bench.configuration { afterLock throws(VaultError) -> any SecureStore in
                guard afterLock else {
                    return EncryptedFileStore(path: path, passphrase: .fixed(Secret("pass")), kdf: kdf, keyCache: policy)
                }
                let noPassphrase = PassphraseSource { _ throws(VaultError) in throw VaultError.locked("no passphrase after a lock") }
                return EncryptedFileStore(path: path, passphrase: noPassphrase, kdf: kdf, keyCache: policy.readOnly)
            }
            try await withAgent(configuration) { agent in
                let load = AgentRequest.load(store: agentStoreKey, server: "db.example.com", account: "app")
                #expect(doneFields(await agent.token(bench)) != nil)
                #expect(doneFields(await agent.answer(load)) != nil)

                // What `vault lock` does: the kept key goes from the cache, the agent drops its own.
                _ = cache.removeAll(prefix: KeyCachePolicy.fileKeyPrefix)
                #expect(await agent.answer(.lock) == .done([]))
                #expect(declineReason(await agent.token(bench)) == Agent.lockedReason)
                #expect(declineReason(await agent.answer(load)) == Agent.lockedReason)
                #expect(try await agent.statusJSON()["locked"] as? Bool == true)
                #expect(try await agent.accountStatus()["state"] as? String == "locked")
                #expect(await agent.answer(.ping) == .done([Array(Agent.versionLine.utf8)]))

                // `vault unlock` puts the key back in the cache: the agent serves again.
                _ = try EncryptedFileStore(path: path, passphrase: .fixed(Secret("pass")), kdf: kdf, keyCache: policy).list()
                #expect(cache.count == 1)
                #expect(doneFields(await agent.token(bench)) != nil)
                #expect(doneFields(await agent.answer(load)) != nil)
                #expect(try await agent.statusJSON()["locked"] as? Bool == false)
            }
        }
    }

    @Test("the token file always holds a whole token, replaced atomically as the token is refreshed; 0600")
    func tokenFileReplacedAtomically() async throws {
        try await withAgentBench(accessTTL: 2, refreshTTL: 60) { bench in
            try await bench.login()
            let path = bench.directory + "/files/token"
            try FileManager.default.createDirectory(atPath: bench.directory + "/files", withIntermediateDirectories: true)
            // A symlink planted at the path is replaced, never followed.
            let victim = bench.directory + "/victim"
            try Data("untouched".utf8).write(to: URL(fileURLWithPath: victim))
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: victim)
            let configuration = bench.configuration(tokenFiles: [TokenFileBinding(path: path, account: bench.account)])
            try await withAgent(configuration) { agent in
                #expect(await eventually { (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == nil })
                let reads = await Blocking.run { () -> [String] in
                    var reads: [String] = []
                    let end = ContinuousClock.now + .seconds(5)
                    while ContinuousClock.now < end {
                        reads.append((try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
                    }
                    return reads
                }
                #expect(reads.count > 100)
                #expect(!reads.contains(""), "the file is never missing or empty")
                let distinct = Set(reads)
                #expect(distinct.count >= 3, "replaced as the token was refreshed")
                // Each read is a whole token: three JWT segments, the signature as long as every other's.
                let signatureLengths = Set(distinct.map { $0.split(separator: ".", omittingEmptySubsequences: false).last?.count ?? 0 })
                #expect(distinct.allSatisfy { $0.split(separator: ".", omittingEmptySubsequences: false).count == 3 })
                #expect(signatureLengths.count == 1)
                #expect(!distinct.contains { $0.hasSuffix("\n") })
                let current = try #require(doneFields(await agent.token(bench)))
                #expect(await eventually { (try? String(contentsOfFile: path, encoding: .utf8)) == String(decoding: current[0], as: UTF8.self) })
                let attributes = try FileManager.default.attributesOfItem(atPath: path)
                #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: bench.directory + "/files")
                #expect(leftovers == ["token"], "no temporary file is left behind")
            }
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == "untouched")
        }
    }
}
