// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

/// One "machine" of a fleet: a HOME, runtime and temporary directory of its own, sharing
/// nothing with the others but etcd (endpoints, prefix, fleet passphrase).
struct FleetMachine: Sendable {
    let home: String
    let environment: [String: String]

    init(root: String, name: String, endpoints: String, prefix: String, extra: [String: String] = [:]) throws {
        home = "\(root)/\(name)"
        for directory in ["", "/run", "/tmp"] {
            try FileManager.default.createDirectory(
                atPath: home + directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        var environment = VaultProcess.baseEnvironment(home: home)
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        environment["XDG_RUNTIME_DIR"] = home + "/run"
        environment["TMPDIR"] = home + "/tmp"
        environment["VAULT_BACKEND"] = "etcd"
        environment["VAULT_ETCD_ENDPOINTS"] = endpoints
        environment["VAULT_ETCD_PREFIX"] = prefix
        environment["VAULT_ETCD_LOCK_TTL"] = "3"
        environment["VAULT_PASSPHRASE"] = EtcdCLITests.fleetPassphrase
        self.environment = environment.merging(extra) { $1 }
    }

    func vault(_ arguments: [String], stdin: String? = nil, timeout: Double = 60) async throws -> ProcessResult {
        try await VaultProcess.vaultAsync(arguments, environment: environment, stdin: stdin.map { Data($0.utf8) }, timeout: timeout)
    }

    func start(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess.start(VaultProcess.vaultPath, arguments, environment: environment)
    }
}

/// The fleet backend end to end: real `vault` processes on several "machines" sharing a
/// real etcd cluster (the shared one of `Scripts/with-etcd`, or a private one for the tests
/// that kill members), and the reference auth server for the fleet-wide refresh.
@Suite(.needsEtcd, .offThePool)
struct EtcdCLITests {
    static let fleetPassphrase = "fleet passphrase 51ab"

    func machines(
        _ count: Int, in root: String, endpoints: String? = nil, prefix: String = EtcdTestEnvironment.uniquePrefix(),
        extra: [String: String] = [:]
    ) throws -> [FleetMachine] {
        let endpoints = try endpoints ?? EtcdTestEnvironment.endpoints()
        return try (0..<count).map { try FleetMachine(root: root, name: "machine\($0)", endpoints: endpoints, prefix: prefix, extra: extra) }
    }

    func expectOneLine(_ result: ProcessResult, status: Int32, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == status, "status \(result.status): \(result.err)", sourceLocation: sourceLocation)
        #expect(result.err.hasPrefix("vault: ") && result.err.filter { $0 == "\n" }.count == 1, "\(result.err)", sourceLocation: sourceLocation)
    }

    @Test func saveOnOneMachineLoadOnAnotherAndListAgrees() async throws {
        try await withTemporaryDirectory("vault-fleet") { root in
            let fleet = try machines(2, in: root)
            let saved = try await fleet[0].vault(
                ["save", "--server", "https://api.example.com", "--account", "deploy-bot", "--label", "Deploy"], stdin: "tok-5f1e\n")
            #expect(saved.status == 0, "\(saved.err)")
            let loaded = try await fleet[1].vault(["load", "--server", "https://api.example.com", "--account", "deploy-bot"])
            #expect(loaded.status == 0, "\(loaded.err)")
            #expect(loaded.out == "tok-5f1e")
            let lists = try await [fleet[0].vault(["list", "--json"]), fleet[1].vault(["list", "--json"])]
            #expect(lists[0].status == 0 && lists[1].status == 0)
            #expect(lists[0].out == lists[1].out)
            #expect(lists[0].out.contains("deploy-bot") && lists[0].out.contains("Deploy"))
            let backend = try await fleet[1].vault(["backend"])
            #expect(backend.out.contains("etcd"), "\(backend.out)")
            // etcd's own client sees no name, label or secret.
            let dump = try EtcdTestEnvironment.dump(
                endpoints: fleet[0].environment["VAULT_ETCD_ENDPOINTS"]!, prefix: fleet[0].environment["VAULT_ETCD_PREFIX"]!)
            #expect(dump.status == 0 && dump.out.contains("params"), "\(dump.err)")
            for word in ["api.example.com", "deploy-bot", "Deploy", "tok-5f1e", Self.fleetPassphrase] {
                #expect(!dump.out.contains(word), "\(word) readable in etcd")
            }
            let removed = try await fleet[1].vault(["remove", "--server", "https://api.example.com", "--account", "deploy-bot"])
            #expect(removed.status == 0)
            #expect(try await fleet[0].vault(["load", "--server", "https://api.example.com", "--account", "deploy-bot"]).status == 1)
        }
    }

    @Test func theKernelKeyCacheServesTheFleetKeyToLaterProcesses() async throws {
        try await withTemporaryDirectory("vault-fleet") { root in
            let machine = try machines(1, in: root, extra: ["VAULT_KEY_CACHE_TTL": "60"])[0]
            #expect(try await machine.vault(["save", "--server", "s", "--account", "a"], stdin: "cached").status == 0)
            var noPassphrase = machine.environment
            noPassphrase.removeValue(forKey: "VAULT_PASSPHRASE")
            let loaded = try await VaultProcess.vaultAsync(["load", "--server", "s", "--account", "a"], environment: noPassphrase)
            #expect(loaded.status == 0, "\(loaded.err)")
            #expect(loaded.out == "cached")
            // Off, the passphrase is needed again (exit 2: no source, no terminal).
            noPassphrase["VAULT_KEY_CACHE_TTL"] = "0"
            expectOneLine(try await VaultProcess.vaultAsync(["load", "--server", "s", "--account", "a"], environment: noPassphrase), status: 2)
        }
    }

    @Test(
        "a given fleet passphrase is checked against the kept key; with none a kept key serves; lock --backend etcd drops it",
        .enabled(if: getuid() == 0, "needs root to run as another uid"))
    func theKeptFleetKeyHonoursAGivenPassphraseAndLockDropsIt() async throws {
        try await withTemporaryDirectory("vault-fleet") { root in
            let machine = try machines(1, in: root, extra: ["VAULT_KEY_CACHE_TTL": "60"])[0]
            // As uid 4244: a user keyring of its own, so the lock never drops the keys of
            // whoever runs the tests (nor of the other tests running now).
            for path in [root, "\(root)/machine0", machine.home + "/run", machine.home + "/tmp"] {
                guard chown(path, 4244, 4244) == 0 else { throw CancellationError() }
            }
            let script = """
                set -u
                printf %s kept-secret | "$VAULT" save --server s --account a || exit 10
                VAULT_PASSPHRASE=wrong "$VAULT" load --server s --account a 2>&1; echo " wrong=$?"
                "$VAULT" load --server s --account a; echo " right=$?"
                env -u VAULT_PASSPHRASE "$VAULT" load --server s --account a; echo " none=$?"
                grep -c ' vault-fleet:' /proc/keys
                env -u VAULT_PASSPHRASE -u VAULT_ETCD_ENDPOINTS "$VAULT" lock --backend etcd 2>&1; echo " lock=$?"
                grep ' vault-fleet:' /proc/keys | awk '$2 !~ /[iRD]/' | wc -l
                env -u VAULT_PASSPHRASE "$VAULT" load --server s --account a 2>&1; echo " after-lock=$?"
                """
            var environment = machine.environment
            environment["VAULT"] = VaultProcess.vaultPath
            let result = try await ChildProcess.runAsync(
                "/usr/bin/setpriv", ["--reuid=4244", "--regid=4244", "--clear-groups", "--", "/bin/sh", "-c", script],
                environment: environment, timeout: 120)
            let lines = result.out.split(separator: "\n").map(String.init)
            #expect(result.status == 0, "\(result.out) \(result.err)")
            #expect(lines.contains(" wrong=3") && !result.out.contains("kept-secret wrong"), "a wrong given passphrase: exit 3: \(lines)")
            #expect(lines.contains("kept-secret right=0"), "the right one: \(lines)")
            #expect(lines.contains("kept-secret none=0"), "none given: the kept key serves: \(lines)")
            #expect(lines.contains("vault: removed 1 kept fleet key") && lines.contains(" lock=0"), "\(lines)")
            #expect(
                lines.filter { Int($0) != nil } == ["1", "0"],
                "one fleet key kept, none live after the lock (invalidated ones linger until collected): \(lines)")
            #expect(lines.contains(" after-lock=2"), "no source and no kept key: exit 2: \(lines)")
        }
    }

    @Test func aWrongFleetPassphraseExits3AndChangesNothing() async throws {
        try await withTemporaryDirectory("vault-fleet") { root in
            let fleet = try machines(2, in: root)
            #expect(try await fleet[0].vault(["save", "--server", "s", "--account", "a"], stdin: "x").status == 0)
            var intruder = fleet[1].environment
            intruder["VAULT_PASSPHRASE"] = "guess"
            let result = try await VaultProcess.vaultAsync(["save", "--server", "s", "--account", "a"], environment: intruder, stdin: Data("y".utf8))
            expectOneLine(result, status: 3)
            #expect(try await fleet[0].vault(["load", "--server", "s", "--account", "a"]).out == "x")
        }
    }

    @Test func badFleetSettingsAreOneLineWithTheDocumentedCode() async throws {
        try await withTemporaryDirectory("vault-fleet") { root in
            let machine = try machines(1, in: root)[0]
            var environment = machine.environment
            environment.removeValue(forKey: "VAULT_ETCD_ENDPOINTS")
            expectOneLine(try await VaultProcess.vaultAsync(["list"], environment: environment), status: 2)
            expectOneLine(try await machine.vault(["list", "--etcd-endpoints", "ftp://127.0.0.1:1"]), status: 2)
            expectOneLine(try await machine.vault(["list", "--etcd-prefix", "no-slash"]), status: 2)
            expectOneLine(try await machine.vault(["list", "--etcd-user", "root"]), status: 2)
            expectOneLine(try await machine.vault(["passwd"]), status: 2)
            var dead = machine.environment
            dead["VAULT_ETCD_TIMEOUT"] = "2"
            let unreachable = try await VaultProcess.vaultAsync(
                ["load", "--server", "s", "--account", "a", "--etcd-endpoints", "http://127.0.0.1:1,http://127.0.0.1:9"], environment: dead,
                timeout: 40)
            expectOneLine(unreachable, status: 4)
            #expect(unreachable.err.contains("http://127.0.0.1:1") && unreachable.err.contains("http://127.0.0.1:9"))
        }
    }

    @Test func plainHTTPToAnotherMachineIsRefusedUnlessAllowedAndTLSOptionsNeedHTTPS() async throws {
        try await withTemporaryDirectory("vault-fleet") { root in
            let machine = try machines(1, in: root)[0]
            // Refused before any connection: nothing leaves this machine.
            for endpoints in ["http://10.0.0.11:2379", "http://127.0.0.1:1,http://etcd.example.com:2379", "http://[fe80::1]:2379"] {
                let refused = try await machine.vault(["list", "--etcd-endpoints", endpoints])
                expectOneLine(refused, status: 2)
                #expect(refused.err.contains("clear text") && refused.err.contains("--etcd-insecure-http"), "\(refused.err)")
            }
            // Allowed explicitly, by the flag or the variable. 0.0.0.0 is this machine to Linux,
            // but not a loopback name: it stands for another machine here, reachable on loopback.
            let port = try #require(machine.environment["VAULT_ETCD_ENDPOINTS"]!.split(separator: ",")[0].split(separator: ":").last)
            let anyAddress = "http://0.0.0.0:\(port)"
            expectOneLine(
                try await machine.vault(["save", "--server", "s", "--account", "a", "--etcd-endpoints", anyAddress], stdin: "x"), status: 2)
            let allowed = try await machine.vault(
                ["save", "--server", "s", "--account", "a", "--etcd-endpoints", anyAddress, "--etcd-insecure-http"], stdin: "x")
            #expect(allowed.status == 0, "\(allowed.err)")
            var environment = machine.environment
            environment["VAULT_ETCD_ENDPOINTS"] = anyAddress
            environment["VAULT_ETCD_INSECURE_HTTP"] = "1"
            let loaded = try await VaultProcess.vaultAsync(["load", "--server", "s", "--account", "a"], environment: environment)
            #expect(loaded.status == 0 && loaded.out == "x", "\(loaded.err)")
            environment["VAULT_ETCD_INSECURE_HTTP"] = "yes"
            expectOneLine(try await VaultProcess.vaultAsync(["list"], environment: environment), status: 2)
            // TLS options with http:// endpoints were silently unused: now exit 2.
            let pem = "\(root)/ca.pem"
            try "not read".write(toFile: pem, atomically: true, encoding: .utf8)
            for options in [["--etcd-cacert", pem], ["--etcd-cert", pem, "--etcd-key", pem]] {
                let refused = try await machine.vault(["list"] + options)
                expectOneLine(refused, status: 2)
                #expect(refused.err.contains("https://"), "\(refused.err)")
            }
        }
    }

    @Test func aParametersRecordCopiedToAnotherClusterDoesNotOpenWithTheKeyCachedForTheFirst() async throws {
        try await withEtcdCluster { other in
            try await withTemporaryDirectory("vault-fleet") { root in
                // A machine of fleet A (the shared cluster) with A's key in the kernel key cache.
                let prefix = EtcdTestEnvironment.uniquePrefix()
                let machine = try machines(1, in: root, prefix: prefix, extra: ["VAULT_KEY_CACHE_TTL": "60"])[0]
                #expect(try await machine.vault(["save", "--server", "s", "--account", "a"], stdin: "a-secret").status == 0)
                // Someone copies fleet A's parameters record into cluster B, under the same prefix.
                let endpointA = String(machine.environment["VAULT_ETCD_ENDPOINTS"]!.split(separator: ",")[0])
                try await Self.copy(prefix + "params", from: endpointA, to: other.members[0].clientURL)
                // The same machine (same user, same key cache) now works for fleet B, with B's passphrase.
                var inB = machine.environment
                inB["VAULT_ETCD_ENDPOINTS"] = other.endpoints
                inB["VAULT_PASSPHRASE"] = "fleet B passphrase"
                let saved = try await VaultProcess.vaultAsync(
                    ["save", "--server", "s", "--account", "b"], environment: inB, stdin: Data("b-secret".utf8))
                expectOneLine(saved, status: 3)
                // Nothing was sealed under A's key in cluster B: a member of fleet A finds nothing there.
                var memberOfA = inB
                memberOfA["VAULT_PASSPHRASE"] = Self.fleetPassphrase
                memberOfA["VAULT_KEY_CACHE_TTL"] = "0"
                let read = try await VaultProcess.vaultAsync(["load", "--server", "s", "--account", "b"], environment: memberOfA)
                #expect(read.status == 1 && read.out.isEmpty, "B's secret was sealed under A's key: \(read.status) \(read.err)")
                // A itself is untouched and still served from the cache.
                var inA = machine.environment
                inA.removeValue(forKey: "VAULT_PASSPHRASE")
                #expect(try await VaultProcess.vaultAsync(["load", "--server", "s", "--account", "a"], environment: inA).out == "a-secret")
            }
        }
    }

    /// Copies the value at `key` from one etcd to another, as bytes (through the JSON gateway).
    static func copy(_ key: String, from source: String, to destination: String) async throws {
        let keyField = Data(key.utf8).base64EncodedString()
        let range = try await ChildProcess.runAsync(
            "/usr/bin/curl", ["-sS", "--max-time", "5", "-d", "{\"key\":\"\(keyField)\"}", source + "/v3/kv/range"], timeout: 10)
        let answer = try JSONSerialization.jsonObject(with: range.stdout) as? [String: Any]
        let value = try #require(((answer?["kvs"] as? [[String: Any]])?.first?["value"]) as? String, "\(range.out)")
        let put = try await ChildProcess.runAsync(
            "/usr/bin/curl", ["-sS", "--max-time", "5", "-d", "{\"key\":\"\(keyField)\",\"value\":\"\(value)\"}", destination + "/v3/kv/put"],
            timeout: 10)
        #expect(put.status == 0 && put.out.contains("header"), "\(put.out)\(put.err)")
    }

    @Test func sixteenRequestsOnFourMachinesAtExpiryCauseOneRefresh() async throws {
        try await withAuthFixture(accessTTL: 6, refreshTTL: 120) { fixture in
            let fleet = try machines(4, in: fixture.dir)
            let login = try await fleet[0].vault(["login", "--server", fixture.url, "--account", "alice"], stdin: fixture.password)
            #expect(login.status == 0, "\(login.err)")
            // The refreshed token lives 10 minutes: a process that starts late on a loaded
            // machine finds it fresh, so a second refresh would be a real one too many.
            fixture.server.setAccessTokenLifetime(600)
            try await Task.sleep(for: .milliseconds(6100))  // the access token has expired
            let running = try (0..<16).map { index in
                try fleet[index % 4].start(["request", "--server", fixture.url, "--account", "alice", "/api/get_devs"])
            }
            for process in running {
                let result = try await process.finishAsync(timeout: 90)
                #expect(result.status == 0, "\(result.err)")
                #expect(result.out.contains("Grace Hopper"))
                fixture.expectNoLeak(result)
            }
            let stats = fixture.server.stats
            #expect(stats.refreshes == 1, "refreshes: \(stats.refreshes)")
            #expect(stats.failedRefreshes == 0)
            #expect(stats.logins == 1, "nobody logged in again")
        }
    }

    @Test func aDeadRefreshTokenOnFourMachinesCausesOneLogin() async throws {
        try await withAuthFixture(accessTTL: 6, refreshTTL: 120) { fixture in
            let fleet = try machines(4, in: fixture.dir)
            #expect(try await fleet[0].vault(["login", "--server", fixture.url, "--account", "alice"], stdin: fixture.password).status == 0)
            _ = fixture.server.revokeRefreshTokens(login: "alice")
            try await Task.sleep(for: .milliseconds(6100))
            let running = try (0..<16).map { index in
                try fleet[index % 4].start(["request", "--server", fixture.url, "--account", "alice", "/api/get_devs"])
            }
            for process in running {
                let result = try await process.finishAsync(timeout: 90)
                #expect(result.status == 0, "\(result.err)")
            }
            let stats = fixture.server.stats
            #expect(stats.logins == 2, "one interactive login and one silent one: \(stats.logins)")
            #expect(stats.failedRefreshes == 1, "failed refreshes: \(stats.failedRefreshes)")
        }
    }

    @Test func aRefreshHolderKilledMidRefreshFreesTheLockWhenItsLeaseExpires() async throws {
        try await withAuthFixture(accessTTL: 4, refreshTTL: 120) { fixture in
            let fleet = try machines(4, in: fixture.dir)
            let prefix = fleet[0].environment["VAULT_ETCD_PREFIX"]!
            let endpoints = fleet[0].environment["VAULT_ETCD_ENDPOINTS"]!
            #expect(try await fleet[0].vault(["login", "--server", fixture.url, "--account", "alice"], stdin: fixture.password).status == 0)
            try await Task.sleep(for: .milliseconds(4100))
            // The first refresh hangs at the server (without spending the refresh token).
            fixture.server.faults.set(.hang, count: 1, hangSeconds: 30)
            let holder = try fleet[0].start(["request", "--server", fixture.url, "--account", "alice", "/api/get_devs"])
            var held = false
            for _ in 0..<200 where !held {
                try await Task.sleep(for: .milliseconds(50))
                held = try EtcdTestEnvironment.dump(endpoints: endpoints, prefix: prefix + "locks/").out.contains(prefix + "locks/")
            }
            #expect(held, "the holder took the fleet lock")
            try await Task.sleep(for: .milliseconds(700))  // its refresh is at the server now
            let others = try (1..<8).map { index in
                try fleet[index % 4].start(["request", "--server", fixture.url, "--account", "alice", "/api/get_devs"])
            }
            try await Task.sleep(for: .milliseconds(500))
            holder.kill()
            let killedAt = Date()
            for process in others {
                let result = try await process.finishAsync(timeout: 90)
                #expect(result.status == 0, "\(result.err)")
            }
            #expect(Date().timeIntervalSince(killedAt) >= 0.5, "the others waited for the lease")
            let stats = fixture.server.stats
            #expect(stats.refreshes == 1, "exactly one more refresh after the killed one: \(stats.refreshes)")
            #expect(stats.logins == 1)
        }
    }

    @Test func theLeaderKilledDuringEightWritersLosesNoAcknowledgedSave() async throws {
        try await withEtcdCluster { cluster in
            try await withTemporaryDirectory("vault-fleet") { root in
                let fleet = try machines(8, in: root, endpoints: cluster.endpoints, extra: ["VAULT_ETCD_TIMEOUT": "15"])
                // The fleet exists before the writers start (its passphrase record).
                #expect(try await fleet[0].vault(["save", "--server", "s", "--account", "seed"], stdin: "0").status == 0)
                let leader = try #require(cluster.leader())
                let writers = fleet.enumerated().map { index, machine in
                    Task { () -> [String] in
                        var acknowledged: [String] = []
                        for round in 0..<6 {
                            let account = "w\(index)-\(round)"
                            let result = try await machine.vault(
                                ["save", "--server", "s", "--account", account], stdin: "secret-\(account)", timeout: 60)
                            if result.status == 0 { acknowledged.append(account) } else { #expect(result.status == 4, "\(result.err)") }
                        }
                        return acknowledged
                    }
                }
                try await Task.sleep(for: .milliseconds(600))
                cluster.kill(leader)
                var acknowledged: [String] = []
                for writer in writers { acknowledged += try await writer.value }
                #expect(acknowledged.count >= 40, "most saves went through the election: \(acknowledged.count) of 48")
                let list = try await fleet[1].vault(["list", "--server", "s", "--json"])
                #expect(list.status == 0, "\(list.err)")
                for account in acknowledged {
                    #expect(list.out.contains("\"\(account)\""), "\(account) was acknowledged and is missing")
                    let loaded = try await fleet[2].vault(["load", "--server", "s", "--account", account])
                    #expect(loaded.out == "secret-\(account)", "\(account): \(loaded.err)")
                }
            }
        }
    }

    @Test func aLostQuorumExits4WithinTheTimeoutAndLosesNothing() async throws {
        try await withEtcdCluster { cluster in
            try await withTemporaryDirectory("vault-fleet") { root in
                let machine = try machines(1, in: root, endpoints: cluster.endpoints, extra: ["VAULT_ETCD_TIMEOUT": "3"])[0]
                #expect(try await machine.vault(["save", "--server", "s", "--account", "kept"], stdin: "before").status == 0)
                let victims = cluster.members.map(\.name).filter { $0 != cluster.leader() }.prefix(2)
                for name in victims { cluster.kill(name) }
                for arguments in [["save", "--server", "s", "--account", "new"], ["load", "--server", "s", "--account", "kept"]] {
                    // VAULT_ETCD_TIMEOUT bounds each etcd call (a command makes up to two in a
                    // row): the message says so; the process's own bound only ends a hang.
                    let result = try await machine.vault(arguments, stdin: "during", timeout: 60)
                    expectOneLine(result, status: 4)
                    #expect(result.err.contains("etcd did not answer within"), "\(result.err)")
                    for member in cluster.members { #expect(result.err.contains(member.clientURL)) }
                }
                for name in victims { try await cluster.restart(name) }
                var loaded = try await machine.vault(["load", "--server", "s", "--account", "kept"])
                for _ in 0..<20 where loaded.status != 0 {
                    try await Task.sleep(for: .milliseconds(500))  // an election may still run
                    loaded = try await machine.vault(["load", "--server", "s", "--account", "kept"])
                }
                #expect(loaded.out == "before", "\(loaded.err)")
            }
        }
    }

    @Test func tlsClientCertificatesAndEtcdUsersAsAFleetRunsThem() async throws {
        try await withSecureEtcdMember { member in
            try await withAuthFixture(accessTTL: 60, refreshTTL: 120) { fixture in
                let passwordFile = "\(fixture.dir)/etcd-password"
                try member.password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
                let wrongFile = "\(fixture.dir)/wrong-password"
                try "not-it".write(toFile: wrongFile, atomically: true, encoding: .utf8)
                for file in [passwordFile, wrongFile] { chmod(file, 0o600) }  // secret files must be private
                let secure: [String: String] = [
                    "VAULT_ETCD_CACERT": member.caFile, "VAULT_ETCD_CERT": member.certificateFile, "VAULT_ETCD_KEY": member.keyFile,
                    "VAULT_ETCD_USER": "vault-fleet", "VAULT_ETCD_PASSWORD_FILE": passwordFile,
                ]
                let machine = try machines(1, in: fixture.dir, endpoints: member.endpoint, prefix: member.prefix, extra: secure)[0]
                let saved = try await machine.vault(["save", "--server", "s", "--account", "a"], stdin: "tls-secret")
                #expect(saved.status == 0, "\(saved.err)")
                #expect(try await machine.vault(["load", "--server", "s", "--account", "a"]).out == "tls-secret")
                // The refresh lock (a lease and etcd's lock service) works under the role too.
                let login = try await machine.vault(["login", "--server", fixture.url, "--account", "alice"], stdin: fixture.password)
                #expect(login.status == 0, "\(login.err)")
                let request = try await machine.vault(["request", "--server", fixture.url, "--account", "alice", "/api/get_devs"])
                #expect(request.status == 0, "\(request.err)")

                func attempt(_ change: [String: String?]) async throws -> ProcessResult {
                    var environment = machine.environment
                    for (name, value) in change { environment[name] = value }
                    var result = try await VaultProcess.vaultAsync(["load", "--server", "s", "--account", "a"], environment: environment)
                    result.stdout = Data()
                    #expect(!result.err.contains(member.password) && !result.err.contains("tls-secret"))
                    return result
                }
                let wrongPassword = try await attempt(["VAULT_ETCD_PASSWORD_FILE": wrongFile])
                expectOneLine(wrongPassword, status: 3)
                #expect(wrongPassword.err.contains("vault-fleet"), "\(wrongPassword.err)")
                let outsideTheRole = try await attempt(["VAULT_ETCD_PREFIX": "/other/"])
                expectOneLine(outsideTheRole, status: 3)
                #expect(outsideTheRole.err.contains("permission denied"), "\(outsideTheRole.err)")
                let anonymous = try await attempt(["VAULT_ETCD_USER": nil, "VAULT_ETCD_PASSWORD_FILE": nil])
                expectOneLine(anonymous, status: 3)
                #expect(anonymous.err.contains("--etcd-user"), "\(anonymous.err)")
                let named = try await attempt(["VAULT_ETCD_CERT": member.namedCertificateFile, "VAULT_ETCD_KEY": member.namedKeyFile])
                expectOneLine(named, status: 4)
                #expect(named.err.contains("without a CN"), "\(named.err)")
                for change: [String: String?] in [
                    ["VAULT_ETCD_CERT": nil, "VAULT_ETCD_KEY": nil], ["VAULT_ETCD_CACERT": nil],
                    ["VAULT_ETCD_CERT": member.strangerCertificateFile, "VAULT_ETCD_KEY": member.strangerKeyFile],
                ] {
                    let refused = try await attempt(change.merging(["VAULT_ETCD_TIMEOUT": "2"]) { $1 })
                    expectOneLine(refused, status: 4)
                    #expect(refused.err.contains(member.endpoint), "\(refused.err)")
                }
                let dump = try await member.etcdctl(["get", "--prefix", member.prefix])
                #expect(dump.status == 0 && dump.out.contains("params"), "\(dump.err)")
                for word in ["tls-secret", "alice", fixture.url, "\"s\""] { #expect(!dump.out.contains(word), "\(word) in etcd") }
            }
        }
    }
}
