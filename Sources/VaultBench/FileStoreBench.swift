// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
@_spi(Benchmarks) import VaultStore

/// Issue 2's figures: key derivation at the default work factor, in-process load and
/// save after unlock with 10, 1,000 and 10,000 items, and a whole-process `vault load`.
enum FileStoreBench {
    static func run(vaultBinary: String, workDirectory: String) throws {
        let passphrase = Secret("benchmark passphrase")
        let kdfTimes = try Measure.times(5) {
            _ = try KDFParameters.default.deriveKeysForBenchmark(passphrase: passphrase)
        }
        let kdf = Measure.median(kdfTimes)

        var table = Table(
            "Encrypted file: in-process, after unlock (default work factor \(KDFParameters.default))",
            columns: ["items", "load median", "load p95", "save median", "save p95", "file size", "target (10,000 items)"])
        for count in [10, 1_000, 10_000] {
            let path = "\(workDirectory)/bench-\(count)/vault.db"
            let store = EncryptedFileStore(path: path, passphrase: .fixed(passphrase))
            try seed(store, path: path, count: count, passphrase: passphrase)
            _ = try store.load(server: "server-0.example", account: "account-0")  // unlock
            var index = 0
            let loads = try Measure.times(200) {
                index = (index + 7) % count
                guard try store.load(server: "server-\(index).example", account: "account-\(index)") != nil else {
                    throw VaultError.notFound(CredentialKey(server: "\(index)", account: "\(index)"))
                }
            }
            let saves = try Measure.times(count >= 10_000 ? 40 : 100) {
                index = (index + 13) % count
                try store.save(Credential(server: "server-\(index).example", account: "account-\(index)", secret: Secret("updated-\(index)")))
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            table.add(
                "\(count)", format(Measure.median(loads)), format(Measure.percentile(loads, 0.95)),
                format(Measure.median(saves)), format(Measure.percentile(saves, 0.95)), "\(size / 1024) KiB",
                count == 10_000 ? "load ≤ 5 ms, save ≤ 25 ms" : "")
        }

        var process = Table(
            "Encrypted file: whole process (release build), 10 items",
            columns: ["what", "median", "min", "runs", "target"])
        process.add(
            "scrypt key derivation (\(KDFParameters.default))", format(kdf), format(kdfTimes.min() ?? .nan), "\(kdfTimes.count)", "0.25 to 0.5 s")
        let environment = [
            "HOME": workDirectory, "VAULT_BACKEND": "file", "VAULT_FILE": "\(workDirectory)/bench-10/vault.db",
            "VAULT_PASSPHRASE": "benchmark passphrase",
            // The passphrase path: every process derives the key (the key cache's rows are in
            // Scripts/bench-secret-service's table).
            "VAULT_KEY_CACHE_TTL": "0",
        ]
        var statuses: Set<Int32> = []
        let runs = (0..<15).map { _ in
            let (time, status) = Measure.runProcess(
                vaultBinary, ["load", "--server", "server-3.example", "--account", "account-3"], environment: environment)
            statuses.insert(status)
            return time
        }
        let whole = Measure.median(runs)
        let benchBinary = URL(fileURLWithPath: vaultBinary).deletingLastPathComponent().appendingPathComponent("VaultBench").path
        let coldKDF = Measure.median((0..<7).map { _ in Measure.runProcess(benchBinary, ["kdf-once"], environment: [:]).0 })
        let startup = Measure.median((0..<15).map { _ in Measure.runProcess(vaultBinary, ["--version"], environment: [:]).0 })
        process.add(
            "`vault load`, no key cache (exit \(statuses.sorted()))", format(whole), format(runs.min() ?? .nan), "\(runs.count)",
            "≤ KDF + 20 ms = \(format(kdf + 20))")
        process.add("`vault load` minus KDF", format(whole - kdf), "", "", "≤ 20 ms")
        process.add("`vault --version` (process start-up alone)", format(startup), "", "15", "")
        process.add("one cold KDF in a fresh process (start-up + 128 MiB first touch)", format(coldKDF), "", "7", "")
        process.add("`vault load` minus the cold-KDF process", format(whole - coldKDF), "", "", "")
        table.print()
        process.print()
        try clientItems(workDirectory: workDirectory, passphrase: passphrase)
    }

    /// Issue 37, finding 10: the file reads clients' items (`secret-tool store user A server S`
    /// through the provider) by the keyring's rule; a load that misses vault's own items scans them.
    private static func clientItems(workDirectory: String, passphrase: Secret) throws {
        var table = Table(
            "Encrypted file with clients' items: 5,000 of vault's and 5,000 plain user + server items (in-process, unlocked)",
            columns: ["operation", "median", "p95", "runs", "target"])
        let path = "\(workDirectory)/bench-clients/vault.db"
        let store = EncryptedFileStore(path: path, passphrase: .fixed(passphrase))
        try seed(store, path: path, count: 5_000, passphrase: passphrase)
        try store.modifyContents { contents in
            for index in 0..<5_000 {
                let reference = ServiceItem.Reference(collection: ServiceCollection.loginID, id: "c\(index)")
                contents.items[reference] = ServiceItem(
                    reference: reference, label: "client \(index)",
                    attributes: ["xdg:schema": "org.freedesktop.Secret.Generic", "user": "user-\(index)", "server": "client-\(index).example"],
                    contentType: "text/plain", secret: Secret("client-secret-\(index)"), created: 1, modified: 1)
            }
            return true
        }
        var index = 0
        let ownLoads = try Measure.times(200) {
            index = (index + 7) % 5_000
            _ = try store.load(server: "server-\(index).example", account: "account-\(index)")
        }
        let clientLoads = try Measure.times(200) {
            index = (index + 7) % 5_000
            guard try store.load(server: "client-\(index).example", account: "user-\(index)") != nil else {
                throw VaultError.notFound(CredentialKey(server: "client-\(index)", account: "user-\(index)"))
            }
        }
        let lists = try Measure.times(20) { _ = try store.list(server: nil) }
        let saves = try Measure.times(40) {
            index = (index + 13) % 5_000
            try store.save(Credential(server: "client-\(index).example", account: "user-\(index)", secret: Secret("updated")))
        }
        for (name, times, target) in [
            ("load, vault's own item", ownLoads, "as without clients' items"), ("load, a client's item", clientLoads, "≤ 5 ms"),
            ("list (10,000 keys)", lists, ""), ("save over a client's item", saves, "≤ 25 ms"),
        ] {
            table.add(name, format(Measure.median(times)), format(Measure.percentile(times, 0.95)), "\(times.count)", target)
        }
        table.print()
    }

    /// Writes `count` items in one go (a single save per item would take minutes).
    private static func seed(_ store: EncryptedFileStore, path: String, count: Int, passphrase: Secret) throws {
        try? FileManager.default.removeItem(atPath: FileOperationsPath.directory(path))
        let items = (0..<count).map {
            Credential(server: "server-\($0).example", account: "account-\($0)", secret: Secret("secret-value-\($0)-0123456789abcdef"))
        }
        try store.saveAll(items)
    }
}

enum FileOperationsPath {
    static func directory(_ path: String) -> String { URL(fileURLWithPath: path).deletingLastPathComponent().path }
}
