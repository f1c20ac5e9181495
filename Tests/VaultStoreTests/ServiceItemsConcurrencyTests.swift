// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultSync
import VaultTestSupport

private typealias F = ServiceItemsFixtures

/// Two store instances on one file (two processes' worth: each takes its own `flock` on
/// the lock file), and `vault save` in other processes, change it at the same time; the
/// lock makes every read-modify-write whole, so nothing is lost.
@Suite(.offThePool) struct ServiceItemsConcurrencyTests {
    static let rounds = 25

    @Test func concurrentChangesFromTwoInstancesLoseNothing() throws {
        try withTemporaryDirectory("vault-ss") { dir in
            // Create the file first, so both writers open it rather than race to create it.
            try F.store(dir).save(Credential(server: "seed", account: "a", secret: Secret("x")))
            let stores = [F.store(dir), F.store(dir)]
            let failures = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { writer in
                let store = stores[writer]
                for round in 0..<Self.rounds {
                    do throws(VaultError) {
                        if round % 5 == 4 {
                            // The SecureStore write path interleaves with modifyContents.
                            try store.save(Credential(server: "w\(writer)", account: "r\(round)", secret: Secret("c\(round)")))
                        } else {
                            try store.modifyContents(F.adding([F.item("login", "w\(writer)_r\(round)", secret: Array("v\(round)".utf8))]))
                        }
                    } catch {
                        failures.withLock { $0.append("writer \(writer) round \(round): \(error)") }
                    }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let contents = try #require(try F.store(dir).contents())
            var expectedItems: Set<String> = []
            var expectedCredentials: Set<String> = ["seed"]
            for writer in 0..<2 {
                for round in 0..<Self.rounds {
                    if round % 5 == 4 { expectedCredentials.insert("w\(writer)/r\(round)") } else { expectedItems.insert("w\(writer)_r\(round)") }
                }
            }
            #expect(Set(contents.items.keys.map(\.id)) == expectedItems)
            #expect(Set(contents.credentials.keys.map { $0.server == "seed" ? "seed" : "\($0.server)/\($0.account)" }) == expectedCredentials)
            for item in contents.items.values {
                #expect(item.secret.bytes == Array("v\(item.reference.id.split(separator: "r").last!)".utf8))
            }
        }
    }

    /// The built `vault` beside this test bundle (override: `VAULT_BIN`).
    static let vaultPath: String = {
        if let path = ProcessInfo.processInfo.environment["VAULT_BIN"] { return path }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("vault").path
    }()

    @Test func vaultSaveInOtherProcessesAndModifyContentsHereLoseNothing() throws {
        try withTemporaryDirectory("vault-ss") { dir in
            try F.store(dir).save(Credential(server: "seed", account: "a", secret: Secret("x")))
            let environment = [
                "HOME": dir, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "VAULT_KEY_CACHE_TTL": "0", "VAULT_BACKEND": "file",
                "VAULT_FILE": "\(dir)/vault.db", "VAULT_PASSPHRASE": F.passphrase,
            ]
            let processes = 8
            let failures = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { writer in
                if writer == 0 {
                    for round in 0..<processes {
                        do {
                            let result = try ChildProcess.run(
                                Self.vaultPath, ["save", "child.example.com", "r\(round)"], environment: environment,
                                stdin: Data("from child \(round)".utf8), timeout: 60)
                            if result.status != 0 { failures.withLock { $0.append("vault save \(round): \(result.err)") } }
                        } catch {
                            failures.withLock { $0.append("vault save \(round): \(error)") }
                        }
                    }
                } else {
                    let store = F.store(dir)
                    for round in 0..<Self.rounds {
                        do throws(VaultError) {
                            try store.modifyContents(F.adding([F.item("login", "here_r\(round)")]))
                        } catch {
                            failures.withLock { $0.append("modifyContents \(round): \(error)") }
                        }
                    }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let contents = try #require(try F.store(dir).contents())
            #expect(contents.items.count == Self.rounds)
            #expect(Set(contents.credentials.keys.map(\.account)) == Set(["a"] + (0..<processes).map { "r\($0)" }))
            for round in 0..<processes {
                let saved = contents.credentials[CredentialKey(server: "child.example.com", account: "r\(round)")]
                #expect(saved?.secret == Secret("from child \(round)"))
            }
            // The vault command reads the version 2 file too.
            let list = try ChildProcess.run(Self.vaultPath, ["list"], environment: environment, timeout: 60)
            #expect(list.status == 0, "\(list.err)")
            #expect(list.out.contains("child.example.com"))
        }
    }

    @Test func anInstanceSeesAnotherInstancesChange() throws {
        try withTemporaryDirectory("vault-ss") { dir in
            let reader = F.store(dir)
            #expect(try reader.contents() == nil)
            try F.store(dir).modifyContents(F.adding([F.item("login", "first")]))
            #expect(try reader.contents()?.items.keys.map(\.id) == ["first"])
            try F.store(dir).modifyContents(F.adding([F.item("login", "second")]))
            #expect(try reader.contents()?.items.keys.map(\.id).sorted() == ["first", "second"])
            // Its own change builds on the other's.
            try reader.modifyContents(F.adding([F.item("login", "third")]))
            #expect(try F.store(dir).contents()?.items.keys.map(\.id).sorted() == ["first", "second", "third"])
        }
    }

    /// A write waiting for another process's lock holds up no reader of the same store (the
    /// Secret Service's other clients are served from one store object).
    @Test func aWriteWaitingForTheLockHoldsUpNoRead() throws {
        try withTemporaryDirectory("vault-ss") { dir in
            let store = EncryptedFileStore(
                path: "\(dir)/vault.db", passphrase: .fixed(Secret(F.passphrase)), kdf: KDFParameters(log2N: 10), lockTimeout: .seconds(4))
            try store.save(Credential(server: "seed", account: "a", secret: Secret("x")))
            _ = try store.contents()
            let other = try FileLock(path: store.lockPath, timeout: .seconds(5))  // another process's, in effect
            let writing = DispatchSemaphore(value: 0)
            let writeResult = Locked<VaultError?>(nil)
            Thread.detachNewThread {
                do throws(VaultError) {
                    try store.modifyContents(F.adding([F.item("login", "late")]))
                } catch {
                    writeResult.withLock { $0 = error }
                }
                writing.signal()
            }
            Thread.sleep(forTimeInterval: 0.5)  // the writer is waiting for the lock by now
            let started = Date()
            let read = try store.contents()
            let load = try store.load(server: "seed", account: "a")
            #expect(Date().timeIntervalSince(started) < Sanitizer.scaled(5), "a read waited for the stuck write")
            #expect(read?.credentials.count == 1 && load?.secret == Secret("x"))
            _ = consume other
            #expect(writing.wait(timeout: .now() + 30) == .success)
            #expect(writeResult.withLock { $0 } == nil, "the write went through once the lock was free")
            #expect(try store.contents()?.items.count == 1)
        }
    }
}
