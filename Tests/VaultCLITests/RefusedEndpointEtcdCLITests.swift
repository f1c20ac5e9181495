// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A refused etcd endpoint among live ones is skipped at once, not after the attempt's
/// bound (2 s) of silent connection retries. (Its name ends in `EtcdCLITests`: Scripts/test
/// runs it next to the cluster of Scripts/with-etcd.)
@Suite(.needsEtcd)
struct RefusedEndpointEtcdCLITests {
    @Test("a refused endpoint listed first costs no wait: load answers about as fast as without it")
    func refusedEndpointIsSkippedAtOnce() async throws {
        let (fd, port) = try NetworkErrorCLITests.closedPort()
        defer { close(fd) }
        try await withTemporaryDirectory("vault-fleet-refused") { root in
            let live = try EtcdTestEnvironment.endpoints()
            let prefix = EtcdTestEnvironment.uniquePrefix()
            let healthy = try FleetMachine(root: root, name: "healthy", endpoints: live, prefix: prefix)
            let refusedFirst = try FleetMachine(root: root, name: "refused", endpoints: "http://127.0.0.1:\(port)," + live, prefix: prefix)
            let saved = try await healthy.vault(["save", "--server", "api.example.com", "--account", "bot"], stdin: "fleet-secret")
            #expect(saved.status == 0, "\(saved.err)")

            let clock = ContinuousClock()
            var baseline = Duration.zero
            var withRefused = Duration.zero
            for _ in 0..<2 {
                baseline += try await clock.measure {
                    let loaded = try await healthy.vault(["load", "--server", "api.example.com", "--account", "bot"])
                    #expect(loaded.status == 0 && loaded.out == "fleet-secret", "\(loaded.err)")
                }
                withRefused += try await clock.measure {
                    let loaded = try await refusedFirst.vault(["load", "--server", "api.example.com", "--account", "bot"])
                    #expect(loaded.status == 0 && loaded.out == "fleet-secret", "\(loaded.err)")
                }
            }
            // Each call used to spend the attempt's 2 s on the refused endpoint first.
            #expect(withRefused < baseline + .seconds(2), "with a refused endpoint \(withRefused), without \(baseline)")
        }
    }
}
