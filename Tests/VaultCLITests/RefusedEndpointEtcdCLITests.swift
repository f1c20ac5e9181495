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
///
/// No clock decides this test: a loaded machine stretches every call by seconds. That the
/// skip costs no wait is `EtcdStoreTests.aRefusedEndpointIsSkippedWithoutWaitingForItsAttempt`,
/// which times single calls in one process.
@Suite(.needsEtcd, .offThePool)
struct RefusedEndpointEtcdCLITests {
    @Test("a refused endpoint listed first: load answers from the next; alone, exit 4 naming it as refused")
    func refusedEndpointIsSkippedAtOnce() async throws {
        let (fd, port) = try NetworkErrorCLITests.closedPort()
        defer { close(fd) }
        try await withTemporaryDirectory("vault-fleet-refused") { root in
            let live = try EtcdTestEnvironment.endpoints()
            let prefix = EtcdTestEnvironment.uniquePrefix()
            let refusedURL = "http://127.0.0.1:\(port)"
            let healthy = try FleetMachine(root: root, name: "healthy", endpoints: live, prefix: prefix)
            let refusedFirst = try FleetMachine(root: root, name: "refused", endpoints: refusedURL + "," + live, prefix: prefix)
            let saved = try await healthy.vault(["save", "--server", "api.example.com", "--account", "bot"], stdin: "fleet-secret")
            #expect(saved.status == 0, "\(saved.err)")

            let loaded = try await refusedFirst.vault(["load", "--server", "api.example.com", "--account", "bot"])
            #expect(loaded.status == 0 && loaded.out == "fleet-secret", "exit \(loaded.status): \(loaded.err)")

            // Only the refused endpoint: every attempt on it must end as refused, none as a
            // wait that ran out, until the operation's own bound (3 s here).
            let refusedOnly = try FleetMachine(
                root: root, name: "refused-only", endpoints: refusedURL, prefix: prefix, extra: ["VAULT_ETCD_TIMEOUT": "3"])
            let failed = try await refusedOnly.vault(["load", "--server", "api.example.com", "--account", "bot"])
            #expect(failed.status == 4, "exit \(failed.status): \(failed.err)")
            #expect(failed.err.contains("\(refusedURL) (connection refused)"), "\(failed.err)")
            #expect(!failed.err.contains("timed out"), "\(failed.err)")
            #expect(failed.err.split(separator: "\n").count == 1, "\(failed.err)")
        }
    }
}
