// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

/// In-process latency of `SecretServiceStore` (release build) on the Secret Service of
/// this session: run inside `Scripts/with-keyring` (`Scripts/bench-secret-service` does).
enum KeyringBench {
    static func run() throws {
        guard ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] != nil else {
            print("\n(keyring section skipped: no session bus; run it inside Scripts/with-keyring)")
            return
        }
        let store = try SecretServiceStore()
        let key = CredentialKey(server: "bench-\(getpid()).example.org", account: "bench")
        try store.save(Credential(key: key, secret: Secret("bench-secret-value")))
        defer { try? store.remove(key) }

        var table = Table("SecretServiceStore in process (release), 200 runs after 10 warm-up", columns: ["call", "median", "p90"])
        func row(_ name: String, runs: Int = 200, _ body: () throws -> Void) throws {
            _ = try Measure.times(10, body)
            let samples = try Measure.times(runs, body)
            table.add(name, format(Measure.median(samples)), format(Measure.percentile(samples, 0.9)))
        }
        try row("load") { _ = try store.load(key) }
        try row("list(server:)") { _ = try store.list(server: key.server) }
        try row("save (update)") { try store.save(Credential(key: key, secret: Secret("bench-secret-value"))) }
        try row("SecretServiceStore() (probe, cached bus)") { _ = try SecretServiceStore() }
        try row("BackendSelection.decide(auto)", runs: 50) {
            _ = try BackendSelection.decide(
                requested: .auto, context: BackendContext(locations: StandardLocations(environment: ProcessInfo.processInfo.environment)))
        }
        table.print()
    }
}
