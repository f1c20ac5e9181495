// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import HTTPTypes
import Logging
import VaultAuth
import VaultEtcd
import VaultHTTPClient
@_spi(Benchmarks) import VaultStore

/// Issue 15's figures (inside `Scripts/with-etcd`, a three-member cluster on loopback):
/// in-process load and save on etcd next to the encrypted file, whole-process `vault load`
/// and `vault save` next to the file backend's, and refresh calls when 64 requesters on
/// 8 machines meet an expired access token (the fleet lock, against one lock per machine).
enum EtcdBench {
    static func run(vaultBinary: String, workDirectory: String) async throws {
        guard let endpoints = ProcessInfo.processInfo.environment["VAULT_ETCD_ENDPOINTS"] else {
            FileHandle.standardError.write(Data("VaultBench etcd: run it inside Scripts/with-etcd (Scripts/bench etcd does)\n".utf8))
            exit(2)
        }
        try inProcess(endpoints: endpoints, workDirectory: workDirectory)
        wholeProcess(vaultBinary: vaultBinary, endpoints: endpoints, workDirectory: workDirectory)
        try await fleetRefresh(endpoints: endpoints)
    }

    static let passphrase = Secret("benchmark passphrase")

    static func store(_ endpoints: String, prefix: String) throws -> EtcdStore {
        let configuration = try EtcdConfiguration(endpoints: endpoints.split(separator: ",").map(String.init), prefix: prefix)
        return EtcdStore(client: try EtcdClient(configuration: configuration), passphrase: .fixed(passphrase))
    }

    static func inProcess(endpoints: String, workDirectory: String) throws {
        var table = Table(
            "etcd (three members on loopback) against the encrypted file: in-process, after unlock (\(KDFParameters.default))",
            columns: ["items", "etcd load median", "etcd load p95", "etcd save median", "etcd save p95", "file load median", "file save median"])
        for count in [10, 1_000] {
            let etcd = try store(endpoints, prefix: "/bench-\(getpid())-\(count)/")
            let file = EncryptedFileStore(path: "\(workDirectory)/etcd-bench-\(count)/vault.db", passphrase: .fixed(passphrase))
            let items = (0..<count).map {
                Credential(server: "server-\($0).example", account: "account-\($0)", secret: Secret("secret-value-\($0)-0123456789abcdef"))
            }
            try file.saveAll(items)
            for item in items { try etcd.save(item) }
            var row = ["\(count)"]
            for store in [etcd, file] as [any SecureStore] {
                var index = 0
                let loads = try Measure.times(200) {
                    index = (index + 7) % count
                    guard try store.load(server: "server-\(index).example", account: "account-\(index)") != nil else {
                        throw VaultError.notFound(CredentialKey(server: "\(index)", account: "\(index)"))
                    }
                }
                let saves = try Measure.times(100) {
                    index = (index + 13) % count
                    try store.save(Credential(server: "server-\(index).example", account: "account-\(index)", secret: Secret("new-\(index)")))
                }
                row +=
                    store is EtcdStore
                    ? [
                        format(Measure.median(loads)), format(Measure.percentile(loads, 0.95)), format(Measure.median(saves)),
                        format(Measure.percentile(saves, 0.95)),
                    ]
                    : [format(Measure.median(loads)), format(Measure.median(saves))]
            }
            table.rows.append(row)
        }
        table.print()
    }

    static func wholeProcess(vaultBinary: String, endpoints: String, workDirectory: String) {
        let secretFile = "\(workDirectory)/etcd-bench-secret"
        _ = FileManager.default.createFile(atPath: secretFile, contents: Data("secret-value-3".utf8))
        let etcd = [
            "HOME": workDirectory, "VAULT_BACKEND": "etcd", "VAULT_ETCD_ENDPOINTS": endpoints,
            "VAULT_ETCD_PREFIX": "/bench-\(getpid())-10/", "VAULT_PASSPHRASE": "benchmark passphrase",
            // Each process derives the key, as in the file column (the cache's rows are the file section's).
            "VAULT_KEY_CACHE_TTL": "0",
        ]
        let file = [
            "HOME": workDirectory, "VAULT_BACKEND": "file", "VAULT_FILE": "\(workDirectory)/etcd-bench-10/vault.db",
            "VAULT_PASSPHRASE": "benchmark passphrase", "VAULT_KEY_CACHE_TTL": "0",
        ]
        var table = Table(
            "etcd against the encrypted file: whole process (release build; each process derives the key, \(KDFParameters.default))",
            columns: ["command", "etcd median", "etcd min", "file median", "file min", "runs", "exit codes"])
        let load = ["load", "--server", "server-3.example", "--account", "account-3"]
        let save = ["save", "--server", "server-3.example", "--account", "account-3"]
        for (name, arguments) in [("`vault load`", load), ("`vault save`", save)] {
            var statuses: Set<Int32> = []
            func runs(_ environment: [String: String]) -> [Double] {
                (0..<11).map { _ in
                    let (time, status) = Measure.runProcess(vaultBinary, arguments, environment: environment, stdin: secretFile)
                    statuses.insert(status)
                    return time
                }
            }
            let onEtcd = runs(etcd)
            let onFile = runs(file)
            table.add(
                name, format(Measure.median(onEtcd)), format(onEtcd.min() ?? .nan), format(Measure.median(onFile)),
                format(onFile.min() ?? .nan), "11 + 11", "\(statuses.sorted())")
        }
        table.print()
    }

    static func fleetRefresh(endpoints: String) async throws {
        var table = Table(
            "Refresh at expiry across a fleet: 64 requesters on 8 machines (8 EtcdStore instances, each its own connection), "
                + "one account, in-process reference server",
            columns: ["refresh lock", "requests OK", "refresh calls at the server", "logins after the first", "wall time", "target"])
        for fleetLock in [true, false] {
            let (server, url) = try await RequesterBench.startServer(accessTTL: 3)
            let prefix = "/bench-\(getpid())-fleet-\(fleetLock)/"
            let transport = AsyncHTTPTransport()
            var sessions: [AuthSession] = []
            for machine in 0..<8 {
                let store = try store(endpoints, prefix: prefix)
                // Without the fleet lock: each machine's own lock file directory (the one-machine lock).
                let lock: RefreshLock.Placement =
                    fleetLock ? .automatic : .directory(FileManager.default.temporaryDirectory.path + "/vault-bench-locks-\(getpid())-\(machine)")
                for _ in 0..<8 { sessions.append(RequesterBench.session(url, transport: transport, store: store, lock: lock)) }
            }
            let settings = LoginSettings(serverURL: url.absoluteString)
            try await sessions[0].login(settings: settings, password: Secret("bench-pw"))
            let loggedIn = ContinuousClock.now
            // The machines are up before the token expires (each has derived the fleet key).
            var requesters: [Requester] = []
            for session in sessions { requesters.append(try await session.requester()) }
            try await Task.sleep(until: loggedIn + .milliseconds(3100))
            let target = URL(string: "\(url.absoluteString)/api/get_devs")!
            let start = ContinuousClock.now
            let ok = await withTaskGroup(of: Int.self) { group in
                for requester in requesters {
                    group.addTask { (try? await requester.send(HTTPRequest(method: .get, url: target)).response.status == .ok) == true ? 1 : 0 }
                }
                return await group.reduce(0, +)
            }
            let elapsed = Measure.milliseconds(ContinuousClock.now - start)
            let stats = server.stats
            table.add(
                fleetLock ? "etcd lock under a lease (the fleet's)" : "a lock file per machine (one machine's)", "\(ok)/64",
                "\(stats.refreshes + stats.failedRefreshes)", "\(stats.logins - 1)", format(elapsed), fleetLock ? "1" : "")
            await transport.shutdown()
            await server.stop()
        }
        table.print()
    }
}
