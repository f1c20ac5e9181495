// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultEtcdFormat
import VaultStore
import VaultSync
import VaultTestSupport
import VaultTesting

@testable import VaultEtcd

/// `EtcdStore` against the real three-member cluster of `Scripts/with-etcd`, each test
/// under a prefix of its own. One test at a time: the store's calls block their thread on
/// etcd round trips, and the lock tests need the concurrency pool's threads free.
@Suite(.serialized, .needsEtcd, .offThePool)
struct EtcdStoreTests {
    static let passphrase = "fleet passphrase 7d2a"

    func configuration(prefix: String? = nil, endpoints: String? = nil, timeout: Duration = .seconds(6)) throws -> EtcdConfiguration {
        try EtcdConfiguration(
            endpoints: (try endpoints ?? EtcdTestEnvironment.endpoints()).split(separator: ",").map(String.init),
            prefix: prefix ?? EtcdTestEnvironment.uniquePrefix(), timeout: timeout, lockTTL: 2)
    }

    func store(_ configuration: EtcdConfiguration, passphrase: String = passphrase) throws -> EtcdStore {
        EtcdStore(client: try EtcdClient(configuration: configuration), passphrase: .fixed(Secret(passphrase)), kdf: KDFParameters(log2N: 10))
    }

    @Test(arguments: StoreContract.Rule.allCases)
    func keepsTheContract(rule: StoreContract.Rule) throws {
        try rule.verify(store(configuration()))
    }

    /// The fleet's lock keeps the AccountLocking contract: two stores on one prefix stand for
    /// two machines.
    @Test(arguments: AccountLockingContract.Rule.allCases)
    func theFleetLockKeepsTheLockingContract(rule: AccountLockingContract.Rule) async throws {
        let shared = try configuration()
        try await rule.verify(
            EtcdAccountLocking(store: store(shared)), EtcdAccountLocking(store: store(shared)), timeout: .milliseconds(1500))
    }

    @Test func aSecondMachineReadsWhatTheFirstWrote() throws {
        let shared = try configuration()
        let first = try store(shared)
        try first.save(Credential(server: "https://api.example.com", account: "ci-bot", secret: Secret("s3cr3t"), label: "CI"))
        let second = try store(shared)
        #expect(try second.load(server: "https://api.example.com", account: "ci-bot")?.secret == Secret("s3cr3t"))
        #expect(try second.list() == first.list())
        #expect(try second.list().map(\.label) == ["CI"])
    }

    @Test func etcdSeesNoServerAccountLabelOrSecret() throws {
        let configuration = try configuration()
        let store = try store(configuration)
        let words = ["server-9f3e.example", "account-4b1c", "label-77aa", "secret-c0ffee"]
        try store.save(Credential(server: words[0], account: words[1], secret: Secret(words[3]), label: words[2]))
        try store.save(Credential(key: CredentialKey(server: words[0], account: words[1], kind: .tokens), secret: Secret(words[3])))
        let dump = try EtcdTestEnvironment.dump(
            endpoints: configuration.endpointList.replacingOccurrences(of: ", ", with: ","), prefix: configuration.prefix)
        #expect(dump.status == 0, "\(dump.err)")
        // Split on every newline, "\r\n" included: Swift reads that pair as one Character, so a
        // sealed value ending in byte 0x0D would otherwise swallow the next key's line.
        let lines = dump.out.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        #expect(lines.filter { $0.hasPrefix(configuration.prefix) }.count == 3, "params and two items: \(lines.count) lines")
        for word in words + [Self.passphrase] { #expect(!dump.out.contains(word), "\(word) is readable in etcd") }
        let raw = try store.client.list(prefix: configuration.prefix).flatMap { $0.key + $0.value }
        for word in words { #expect(!raw.contains(Array(word.utf8)), "\(word) is in etcd's bytes") }
    }

    @Test func aValueMovedToAnotherKeyIsRefused() throws {
        let store = try store(configuration())
        try store.save(Credential(server: "s", account: "alice", secret: Secret("alice's")))
        try store.save(Credential(server: "s", account: "bob", secret: Secret("bob's")))
        let items = try store.client.list(prefix: store.itemsPrefix)
        #expect(items.count == 2)
        // Overwrite one item's key with the other's sealed value, as an etcd administrator could.
        let (source, target) = (items[0], items[1])
        let targetKey = String(decoding: target.key, as: UTF8.self)
        #expect(try store.client.put(targetKey, source.value, ifRevisionOf: targetKey, is: target.modRevision) == nil)
        var refused = 0
        for account in ["alice", "bob"] {
            do {
                let loaded = try store.load(server: "s", account: account)
                #expect(loaded?.secret == Secret("\(account)'s"), "\(account) got another item's secret")
            } catch {
                guard case .corrupted = error else { throw error }
                refused += 1
            }
        }
        #expect(refused == 1, "exactly the overwritten item is refused")
        #expect { try store.list() } throws: { sameCase($0, as: VaultError.corrupted("")) }
    }

    @Test func theKeyCacheSparesLaterProcessesThePassphraseAndDropsAKeyThatDoesNotFit() throws {
        let configuration = try configuration()
        let cache = MemoryKeyCache()
        let policy = KeyCachePolicy(cache: cache, lifetime: 60)
        let first = EtcdStore(
            client: try EtcdClient(configuration: configuration), passphrase: .fixed(Secret(Self.passphrase)), kdf: KDFParameters(log2N: 10),
            keyCache: policy)
        try first.save(Credential(server: "s", account: "a", secret: Secret("x")))
        #expect(cache.count == 1, "the new fleet's key was kept")
        let asked = Locked(0)
        let counting = PassphraseSource { _ in
            asked.withLock { $0 += 1 }
            return Secret(Self.passphrase)
        }
        let second = EtcdStore(client: try EtcdClient(configuration: configuration), passphrase: counting, keyCache: policy)
        #expect(try second.load(server: "s", account: "a")?.secret == Secret("x"))
        #expect(asked.withLock { $0 } == 0, "the kept key was used")
        cache.replaceAll(with: Array(repeating: 7, count: 32))
        let third = EtcdStore(client: try EtcdClient(configuration: configuration), passphrase: counting, keyCache: policy)
        #expect(try third.load(server: "s", account: "a")?.secret == Secret("x"))
        #expect(asked.withLock { $0 } == 1, "a key that does not verify the record is dropped and the passphrase asked")
    }

    /// The typed checks; the command's parsing of its options and variables, and its
    /// wording, are `EtcdSettingsTests` (VaultCLITests).
    @Test func plainHTTPIsForThisMachineUnlessAllowedAndTLSFilesNeedHTTPS() throws {
        func parse(
            _ endpoints: String, caFile: String? = nil, certificate: String? = nil, key: String? = nil, insecure: Bool = false
        ) throws(EtcdConfiguration.Problem) -> EtcdConfiguration {
            try EtcdConfiguration(
                endpoints: endpoints.split(separator: ",").map(String.init), caFile: caFile, certificateFile: certificate, keyFile: key,
                insecureHTTP: insecure)
        }
        for loopback in ["http://127.0.0.1:2379", "http://127.8.9.10:2379", "http://localhost:2379", "http://LOCALHOST:2379", "http://[::1]:2379"] {
            #expect(throws: Never.self, "\(loopback)") { try parse(loopback) }
        }
        for remote in [
            "http://10.0.0.11:2379", "http://0.0.0.0:2379", "http://127.0.0.1.example.com:2379", "http://localhost.example.com:2379",
            "http://[fe80::1]:2379", "http://[::ffff:10.0.0.1]:2379", "https://127.0.0.1:2379,http://etcd:2379",
        ] {
            do throws(EtcdConfiguration.Problem) {
                _ = try parse(remote)
                Issue.record("accepted \(remote)")
            } catch {
                guard case .plainHTTPToAnotherMachine = error else {
                    Issue.record("\(remote): \(error)")
                    continue
                }
            }
            let allowed = try parse(remote, insecure: true)
            #expect(allowed.insecureHTTP)
        }
        #expect(try parse("https://10.0.0.11:2379").usesTLS)
        #expect(try !parse("http://127.0.0.1:2379").usesTLS)
        for (ca, certificate, key) in [("/ca.pem", nil, nil), (nil, "/c.pem", "/k.pem")] as [(String?, String?, String?)] {
            #expect(throws: EtcdConfiguration.Problem.tlsFilesWithPlainHTTP(endpoint: "http://127.0.0.1:2379")) {
                try parse("http://127.0.0.1:2379", caFile: ca, certificate: certificate, key: key)
            }
            #expect(throws: EtcdConfiguration.Problem.tlsFilesWithPlainHTTP(endpoint: "http://127.0.0.1:2380")) {
                try parse("https://127.0.0.1:2379,http://127.0.0.1:2380", caFile: ca, certificate: certificate, key: key)
            }
            #expect(throws: Never.self) { try parse("https://127.0.0.1:2379", caFile: ca, certificate: certificate, key: key) }
        }
    }

    @Test func theKeyCacheNameBindsTheClusterThePrefixAndTheRecord() throws {
        let configuration = try configuration()
        let store = try store(configuration)
        try store.save(Credential(server: "s", account: "a", secret: Secret("x")))
        let cluster = try #require(store.client.clusterID)
        #expect(!cluster.isEmpty && cluster.allSatisfy(\.isNumber), "\(cluster)")
        let record = try #require(try store.client.get(configuration.prefix + "params")).value
        let name = FleetFormat.cacheName(clusterID: cluster, prefix: configuration.prefix, record: record)
        #expect(name.hasPrefix("vault-fleet:") && name.count == "vault-fleet:".count + 32)
        #expect(name != FleetFormat.cacheName(clusterID: cluster + "1", prefix: configuration.prefix, record: record))
        #expect(name != FleetFormat.cacheName(clusterID: cluster, prefix: configuration.prefix + "x/", record: record))
        #expect(name != FleetFormat.cacheName(clusterID: cluster, prefix: configuration.prefix, record: record.reversed()))
    }

    @Test func aKeptKeyServesAGivenPassphraseOnlyWhenItIsTheKeysAndAReadOnlyPolicyAddsNone() throws {
        let configuration = try configuration()
        let cache = MemoryKeyCache()
        let readOnly = KeyCachePolicy(cache: cache, lifetime: 60, storesNewKeys: false)
        let first = EtcdStore(
            client: try EtcdClient(configuration: configuration), passphrase: .fixed(Secret(Self.passphrase)), kdf: KDFParameters(log2N: 10),
            keyCache: readOnly)
        try first.save(Credential(server: "s", account: "a", secret: Secret("x")))
        #expect(cache.count == 0, "storesNewKeys false: nothing kept")
        let policy = KeyCachePolicy(cache: cache, lifetime: 60)
        #expect(
            try EtcdStore(client: try EtcdClient(configuration: configuration), passphrase: .fixed(Secret(Self.passphrase)), keyCache: policy).load(
                server: "s", account: "a") != nil)
        #expect(cache.count == 1)
        // A wrong given passphrase is not taken on the cache's word.
        #expect(throws: VaultError.wrongPassphrase) {
            try EtcdStore(client: try EtcdClient(configuration: configuration), passphrase: .fixed(Secret("wrong")), keyCache: policy)
                .load(server: "s", account: "a")
        }
        // None given (only a prompt left): the kept key serves without asking.
        let prompted = Locked(0)
        let prompt = PassphraseSource { _ in
            prompted.withLock { $0 += 1 }
            return Secret("typed")
        }
        #expect(
            try EtcdStore(client: try EtcdClient(configuration: configuration), passphrase: prompt, keyCache: policy).load(server: "s", account: "a")?
                .secret == Secret("x"))
        #expect(prompted.withLock { $0 } == 0)
        #expect(cache.count == 1, "the right key stays kept")
    }

    @Test func aWriteOverAnItemAnotherMachineChangedSinceItWasReadIsRefused() throws {
        let shared = try configuration()
        let first = try store(shared)
        let second = try store(shared)
        try first.save(Credential(server: "s", account: "a", secret: Secret("v1")))
        #expect(try first.load(server: "s", account: "a")?.secret == Secret("v1"))
        #expect(try second.load(server: "s", account: "a")?.secret == Secret("v1"))
        try second.save(Credential(server: "s", account: "a", secret: Secret("v2 from the second machine")))
        // The first machine read v1 and writes over what it read: refused, v2 kept.
        do {
            try first.save(Credential(server: "s", account: "a", secret: Secret("v3 from stale v1")))
            Issue.record("a write over a changed item went through")
        } catch {
            guard case .conflict = error else { throw error }
        }
        #expect(try second.load(server: "s", account: "a")?.secret == Secret("v2 from the second machine"))
        // After a fresh read, the write goes through.
        #expect(try first.load(server: "s", account: "a")?.secret == Secret("v2 from the second machine"))
        try first.save(Credential(server: "s", account: "a", secret: Secret("v3")))
        #expect(try second.load(server: "s", account: "a")?.secret == Secret("v3"))
        // An item this instance found missing must still be missing when it creates it.
        #expect(try first.load(server: "s", account: "new") == nil)
        try second.save(Credential(server: "s", account: "new", secret: Secret("theirs")))
        #expect { try first.save(Credential(server: "s", account: "new", secret: Secret("mine"))) } throws: {
            sameCase($0, as: VaultError.conflict(""))
        }
        #expect(try second.load(server: "s", account: "new")?.secret == Secret("theirs"))
    }

    @Test func aFleetCopiedUnderAnotherPrefixDoesNotOpen() throws {
        let source = try store(configuration())
        try source.save(Credential(server: "s", account: "a", secret: Secret("x")))
        let copy = try store(configuration())
        for entry in try source.client.list(prefix: source.prefix) {
            let key = copy.prefix + String(decoding: entry.key, as: UTF8.self).dropFirst(source.prefix.count)
            #expect(try copy.client.put(key, entry.value, ifRevisionOf: key, is: 0) == nil)
        }
        #expect(throws: VaultError.wrongPassphrase) { try copy.load(server: "s", account: "a") }
    }

    @Test func aWrongPassphraseIsRefusedAndWritesNothing() throws {
        let shared = try configuration()
        try store(shared).save(Credential(server: "s", account: "a", secret: Secret("x")))
        let intruder = try store(shared, passphrase: "not the fleet's")
        #expect(throws: VaultError.wrongPassphrase) { try intruder.load(server: "s", account: "a") }
        #expect(throws: VaultError.wrongPassphrase) { try intruder.save(Credential(server: "s", account: "b", secret: Secret("y"))) }
        #expect(throws: VaultError.wrongPassphrase) { try intruder.remove(server: "s", account: "a") }
        #expect(try store(shared).list().map(\.account) == ["a"])
    }

    @Test func anEmptyFleetAsksForNoPassphraseAndCreatesNothing() throws {
        let configuration = try configuration()
        let asked = Locked(0)
        let store = EtcdStore(
            client: try EtcdClient(configuration: configuration),
            passphrase: PassphraseSource { _ in
                asked.withLock { $0 += 1 }
                return Secret("p")
            }, kdf: KDFParameters(log2N: 10))
        #expect(try store.load(server: "s", account: "a") == nil)
        #expect(try store.list().isEmpty)
        try store.remove(server: "s", account: "a")
        #expect(asked.withLock { $0 } == 0)
        #expect(try store.client.list(prefix: configuration.prefix).isEmpty)
    }

    @Test func machinesCreatingTheFleetAtOnceAgreeOnOneSalt() async throws {
        let shared = try configuration()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for machine in 0..<4 {
                let store = try store(shared)
                group.addTask {
                    // A synchronous save waits on etcd: on a thread of its own, not on the pool.
                    try await onOwnThread { try store.save(Credential(server: "s", account: "m\(machine)", secret: Secret("\(machine)"))) }
                }
            }
            try await group.waitForAll()
        }
        let reader = try store(shared)
        #expect(try reader.list().map(\.account) == ["m0", "m1", "m2", "m3"])
    }

    @Test func neighboursUnderAndOutsideThePrefixAreNeverTouched() throws {
        let configuration = try configuration()
        let store = try store(configuration)
        let neighbours = [configuration.prefix + "someone-else", configuration.prefix + "items", String(configuration.prefix.dropLast()) + "x"]
        for key in neighbours { #expect(try store.client.put(key, Array("theirs".utf8), ifRevisionOf: key, is: 0) == nil) }
        try store.save(Credential(server: "s", account: "a", secret: Secret("x")))
        #expect(try store.list().map(\.account) == ["a"])
        try store.remove(server: "s", account: "a")
        for key in neighbours { #expect(try store.client.get(key)?.value == Array("theirs".utf8), "\(key) was changed") }
    }

    @Test func somethingElseAtTheParametersKeyIsNeverOverwritten() throws {
        let configuration = try configuration()
        let store = try store(configuration)
        let key = configuration.prefix + "params"
        #expect(try store.client.put(key, Array("not vault's".utf8), ifRevisionOf: key, is: 0) == nil)
        #expect { try store.save(Credential(server: "s", account: "a", secret: Secret("x"))) } throws: {
            sameCase($0, as: VaultError.unsupportedFormat(""))
        }
        #expect(try store.client.get(key)?.value == Array("not vault's".utf8))
    }

    @Test func aDownEndpointIsSkipped() throws {
        let live = try EtcdTestEnvironment.endpoints()
        let store = try store(configuration(endpoints: "http://127.0.0.1:1," + live))
        try store.save(Credential(server: "s", account: "a", secret: Secret("x")))
        #expect(try store.load(server: "s", account: "a")?.secret == Secret("x"))
    }

    /// With the connection pool's own retries on, a refused endpoint held each call until the
    /// connection's 2-s bound ran out before the next endpoint was tried; skipped at once,
    /// the call takes a few milliseconds. The fastest of three calls (each from a client that
    /// has no preferred endpoint yet) must stay under half that bound, which a moment's
    /// load on the machine cannot blur as it could a sum of whole `vault` runs.
    @Test func aRefusedEndpointIsSkippedWithoutWaitingForItsAttempt() throws {
        let (fd, port) = try RawSocket.boundLoopback(listening: false)
        defer { close(fd) }
        let live = try EtcdTestEnvironment.endpoints()
        var fastest = Duration.seconds(3600)
        for _ in 0..<3 {
            let client = try EtcdClient(configuration: configuration(endpoints: "http://127.0.0.1:\(port)," + live, timeout: .seconds(60)))
            let start = ContinuousClock.now
            let answer = try client.call(
                "/v3/kv/range", ["key": EtcdWire.base64("vault-test/refused")], as: EtcdWire.RangeResponse.self,
                overall: .seconds(60), attemptTimeout: .seconds(30))
            fastest = min(fastest, ContinuousClock.now - start)
            #expect((answer.kvs ?? []).isEmpty)
        }
        // A hang guard: a refused endpoint held a call for its attempt's 30 s before.
        #expect(fastest < Sanitizer.scaled(.seconds(5)), "the refused endpoint held the fastest of three calls for \(fastest)")
    }

    /// A member that takes the connection and never answers (a stopped or overloaded
    /// process) holds a call for one attempt's bound, not for the whole operation: the
    /// next endpoint answers. Nothing reads the listening socket, so the kernel's backlog
    /// accepts the connection and the request sits unread.
    @Test func aStalledEndpointCostsOneAttemptThenTheNextAnswers() throws {
        let (fd, port) = try RawSocket.boundLoopback(listening: true)
        defer { close(fd) }
        let live = try EtcdTestEnvironment.endpoints()
        let client = try EtcdClient(configuration: configuration(endpoints: "http://127.0.0.1:\(port)," + live, timeout: .seconds(60)))
        let start = ContinuousClock.now
        let answer = try client.call(
            "/v3/kv/range", ["key": EtcdWire.base64("vault-test/stalled")], as: EtcdWire.RangeResponse.self,
            overall: .seconds(60), attemptTimeout: .seconds(1))
        let took = ContinuousClock.now - start
        #expect((answer.kvs ?? []).isEmpty)
        #expect(took >= .milliseconds(900), "the stalled endpoint was not waited for: \(took)")
        #expect(took < Sanitizer.scaled(.seconds(20)), "the stalled endpoint held the call for \(took) of its 60 s")
    }

    @Test func noEndpointAnsweringIsUnavailableWithinTheTimeoutNamingThem() throws {
        let store = try store(configuration(endpoints: "http://127.0.0.1:1,http://127.0.0.1:9", timeout: .seconds(2)))
        let start = ContinuousClock.now
        do {
            _ = try store.load(server: "s", account: "a")
            Issue.record("a load with no etcd succeeded")
        } catch {
            guard case .backendUnavailable(let why) = error else {
                Issue.record("not backendUnavailable: \(error)")
                return
            }
            #expect(why.contains("http://127.0.0.1:1") && why.contains("http://127.0.0.1:9"), "\(why)")
        }
        #expect(ContinuousClock.now - start < Sanitizer.scaled(.seconds(20)), "a hang guard")
    }

    /// The command's own cases (its variables, its wording) are `EtcdSettingsTests` (VaultCLITests).
    @Test func badConfigurationsAreOneLineEach() {
        let cases: [(endpoints: [String], prefix: String?, certificate: String?, user: String?)] = [
            ([], nil, nil, nil), (["ftp://h:1"], nil, nil, nil), (["http://h:1/v3"], nil, nil, nil), (["http://u:p@h:1"], nil, nil, nil),
            (["http://h:1"], "vault", nil, nil), (["http://h:1"], nil, "/c", nil), (["http://h:1"], nil, nil, "u"),
            (["http://h:1", ""], nil, nil, nil),
            (["http://127.0.0.1:65536"], nil, nil, nil), (["http://127.0.0.1:99999999999999999999"], nil, nil, nil),
            (["http://127.0.0.1:0"], nil, nil, nil), (["http://127.0.0.1:"], nil, nil, nil),
            (["http://" + String(repeating: "h", count: 100_000) + ":1"], nil, nil, nil),
            (["http://h:1"], "/bidi\u{202E}/", nil, nil), (["http://h:1"], "/nel\u{85}/", nil, nil),
            (Array(repeating: "http://127.0.0.1:1", count: EtcdConfiguration.maximumEndpoints + 1), nil, nil, nil),
        ]
        for given in cases {
            do throws(EtcdConfiguration.Problem) {
                _ = try EtcdConfiguration(endpoints: given.endpoints, prefix: given.prefix, certificateFile: given.certificate, user: given.user)
                Issue.record("accepted \(given)")
            } catch {
                let why = error.description
                #expect(!why.contains("\n") && !why.contains("u:p") && why.count < 400, "\(why.prefix(200))")
            }
        }
    }

    @Test func theFleetLockIsHeldByOneAtATimeAndFreedOnRelease() async throws {
        let shared = try configuration()
        let first = try store(shared)
        let second = try store(shared)
        let hold = try await first.accountLocking.lock(server: "s", account: "a", timeout: .seconds(5))
        await #expect {
            _ = try await second.accountLocking.lock(server: "s", account: "a", timeout: .milliseconds(1500))
        } throws: {
            sameCase($0, as: VaultError.lockTimeout(""))
        }
        // Another account's lock is not this one.
        let other = try await second.accountLocking.lock(server: "s", account: "b", timeout: .seconds(5))
        await other.release()
        let start = ContinuousClock.now
        Task {
            try await Task.sleep(for: .milliseconds(500))
            await hold.release()
        }
        let next = try await second.accountLocking.lock(server: "s", account: "a", timeout: .seconds(10))
        #expect(ContinuousClock.now - start >= .milliseconds(400))
        await next.release()
        #expect(try first.client.list(prefix: first.locksPrefix).isEmpty, "released locks leave no key")
    }

    @Test func aHoldWhoseLeaseExpiredKnowsItIsNoLongerHeld() async throws {
        let store = try store(configuration())
        let hold = try #require(try await store.accountLocking.lock(server: "s", account: "a", timeout: .seconds(5)) as? EtcdLockHold)
        #expect(await hold.isStillHeld())
        try store.client.revoke(lease: hold.lease)  // as the lease expiring while its holder is stopped
        #expect(await hold.isStillHeld() == false)
        // And the lock is free for the next machine at once.
        let next = try await store.accountLocking.lock(server: "s", account: "a", timeout: .seconds(2))
        await next.release()
        await hold.release()
    }

    @Test func lockNamesDoNotRevealWhichItemTheyGuard() async throws {
        let store = try store(configuration())
        try store.save(Credential(key: CredentialKey(server: "s", account: "a", kind: .tokens), secret: Secret("t")))
        let hold = try await store.accountLocking.lock(server: "s", account: "a", timeout: .seconds(5))
        let items = try store.client.list(prefix: store.itemsPrefix).map {
            String(decoding: $0.key, as: UTF8.self).dropFirst(store.itemsPrefix.count)
        }
        let locks = try store.client.list(prefix: store.locksPrefix).map {
            String(decoding: $0.key, as: UTF8.self).dropFirst(store.locksPrefix.count)
        }
        #expect(items.count == 1 && locks.count == 1)
        #expect(!locks[0].hasPrefix(items[0]), "the lock is named like the tokens item")
        await hold.release()
    }

    @Test func aDeletedParametersRecordWithItemsLeftIsTamperingNotAnEmptyFleet() throws {
        let configuration = try configuration()
        try store(configuration).save(Credential(server: "s", account: "a", secret: Secret("x")))
        let admin = try EtcdClient(configuration: configuration)
        let params = try #require(try admin.get(configuration.prefix + "params"))
        let deleted = try admin.write(.delete(configuration.prefix + "params"), guards: [(configuration.prefix + "params", params.modRevision)])
        #expect(deleted != .conflict([params]))
        let fresh = try store(configuration, passphrase: "another passphrase")
        #expect { _ = try fresh.load(server: "s", account: "a") } throws: { sameCase($0, as: VaultError.corrupted("")) }
        #expect { _ = try fresh.list() } throws: { sameCase($0, as: VaultError.corrupted("")) }
        #expect { try fresh.remove(server: "s", account: "a") } throws: { sameCase($0, as: VaultError.corrupted("")) }
        #expect { try fresh.save(Credential(server: "s", account: "b", secret: Secret("y"))) } throws: {
            sameCase($0, as: VaultError.corrupted(""))
        }
        #expect(try admin.get(configuration.prefix + "params") == nil, "no new fleet was started over the old items")
    }

    @Test func anotherProgramsKeyUnderItemsDoesNotStopANewFleet() throws {
        let configuration = try configuration()
        let foreign = configuration.prefix + "items/README"
        let client = try EtcdClient(configuration: configuration)
        #expect(try client.put(foreign, Array("theirs".utf8), ifRevisionOf: foreign, is: 0) == nil)
        let store = try store(configuration)
        #expect(try store.list().isEmpty)
        try store.save(Credential(server: "s", account: "a", secret: Secret("x")))
        #expect(try store.list().map(\.account) == ["a"])
        #expect(try client.get(foreign)?.value == Array("theirs".utf8))
    }

    @Test func keysOfAnotherShapeUnderItemsAreNotItems() throws {
        let configuration = try configuration()
        let store = try store(configuration)
        try store.save(Credential(server: "s", account: "a", secret: Secret("x")))
        // A fleet nested under this one's items, and another program's key.
        let nested = try self.store(self.configuration(prefix: configuration.prefix + "items/"))
        try nested.save(Credential(server: "t", account: "b", secret: Secret("y")))
        let foreign = configuration.prefix + "items/not-a-hidden-name"
        #expect(try store.client.put(foreign, Array("theirs".utf8), ifRevisionOf: foreign, is: 0) == nil)
        #expect(try store.list().map(\.account) == ["a"])
        #expect(try nested.list().map(\.account) == ["b"])
        #expect(try store.client.get(foreign)?.value == Array("theirs".utf8))
    }

    @Test func aPasswordFileThatIsAFIFONobodyWritesIsAnErrorNotAHang() throws {
        try withTemporaryDirectory("vault-fifo") { directory in
            let fifo = directory + "/password"
            #expect(mkfifo(fifo, 0o600) == 0)
            let start = ContinuousClock.now
            #expect {
                _ = try EtcdClient(
                    configuration: EtcdConfiguration(endpoints: ["http://127.0.0.1:1"], user: "u", passwordFile: fifo))
            } throws: {
                sameCase($0, as: VaultError.invalidInput("")) && "\($0)".contains("FIFO")
            }
            #expect(ContinuousClock.now - start < Sanitizer.scaled(.seconds(15)), "a FIFO is refused, never read: a hang guard")
        }
    }

    @Test func aHeldLockOutlivesItsLeaseTTLWhileKeptAlive() async throws {
        let shared = try configuration()  // lock TTL 2 s
        let holder = try store(shared)
        let hold = try await holder.accountLocking.lock(server: "s", account: "a", timeout: .seconds(5))
        try await Task.sleep(for: .seconds(4))
        await #expect {
            _ = try await store(shared).accountLocking.lock(server: "s", account: "a", timeout: .milliseconds(800))
        } throws: {
            sameCase($0, as: VaultError.lockTimeout(""))
        }
        await hold.release()
    }
}
