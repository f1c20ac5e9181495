// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A refused etcd endpoint among live ones is skipped at once, not after the attempt's
/// bound (2 s) of silent connection retries; refused everywhere, vault fails at once; a
/// silent endpoint is waited for, and a terminal is told so after 2 s. (Its name ends in `EtcdCLITests`: Scripts/test
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

            // Only the refused endpoint: nothing listens, so vault fails at once (issue 38
            // §5.5), not at the operation's bound: 600 s here, which the child's 60 s bound
            // would cut short.
            let refusedOnly = try FleetMachine(
                root: root, name: "refused-only", endpoints: refusedURL, prefix: prefix, extra: ["VAULT_ETCD_TIMEOUT": "600"])
            let failed = try await refusedOnly.vault(["load", "--server", "api.example.com", "--account", "bot"], timeout: 60)
            #expect(failed.status == 4, "exit \(failed.status): \(failed.err)")
            #expect(
                failed.err
                    == "vault: backend unavailable: no etcd accepts connections at \(refusedURL) (connection refused): is etcd running there?\n",
                "\(failed.err)")
        }
    }

    @Test("an endpoint that accepts and never answers: on a terminal, after 2 s, one line says vault waits for etcd")
    func waitingIsSaidOnATerminal() async throws {
        let (fd, port) = try RawSocket.boundLoopback(listening: true)  // the kernel accepts; nobody answers
        defer { close(fd) }
        try await withTemporaryDirectory("vault-fleet-silent") { root in
            let silent = "http://127.0.0.1:\(port)"
            let machine = try FleetMachine(
                root: root, name: "silent", endpoints: silent, prefix: EtcdTestEnvironment.uniquePrefix(), extra: ["VAULT_ETCD_TIMEOUT": "5"])
            let onTerminal = try await StderrOnATerminal.run(
                VaultProcess.vaultPath, ["load", "api.example.com", "bot"], environment: machine.environment)
            let notices = onTerminal.lines.filter { $0.hasPrefix("vault: waiting for etcd (at most ") }
            #expect(notices.count == 1 && notices.first?.hasSuffix(" s more): \(silent) (timed out)") == true, "\(onTerminal.lines)")
            #expect(onTerminal.status == 4, "\(onTerminal.lines)")
            // Into a pipe: nothing but the failure.
            let piped = try await machine.vault(["load", "api.example.com", "bot"])
            #expect(piped.status == 4 && !piped.err.contains("waiting for etcd"), "\(piped.err)")
            #expect(piped.err.split(separator: "\n").count == 1, "\(piped.err)")
        }
    }
}
