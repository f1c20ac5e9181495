// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultTestSupport

/// `vault` itself (its libsecret backend) as a client of the provider.
@Suite("Secret Service provider: vault --backend secret-service", .serialized, .offThePool)
struct VaultCLIClientTests {
    /// The `vault` built next to the test bundle (`swift build --build-tests` builds it for
    /// VaultCLITests), or `VAULT_BIN`.
    static let vaultPath: String = {
        if let path = ProcessInfo.processInfo.environment["VAULT_BIN"] { return path }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("vault").path
    }()

    @Test(
        "vault save, load, list and remove through the provider land in vault's own credentials",
        .enabled(if: FileManager.default.isExecutableFile(atPath: vaultPath), "needs the vault executable"))
    func saveLoadListRemove() async throws {
        try await withProvider { harness in
            let server = "https://git.example.com:8443/repo.git"
            // The provider runs in this test process; the library pass's tests run off the
            // concurrency pool (.offThePool), so its answers are not starved (issue 28).
            func vault(_ arguments: [String], stdin: String? = nil) async throws -> ProcessResult {
                try await harness.run(Self.vaultPath, arguments, stdin: stdin)
            }
            let saved = try await vault(["save", "--backend", "secret-service", "--server", server, "--account", "bob"], stdin: "cli-pw-3")
            #expect(saved.status == 0, "\(saved.err)")
            let key = CredentialKey(server: server, account: "bob")
            #expect(harness.backing.current.credentials[key]?.secret == Secret("cli-pw-3"))
            #expect(harness.backing.current.items.isEmpty)

            let loaded = try await vault(["load", "--backend", "secret-service", "--server", server, "--account", "bob"])
            #expect(loaded.status == 0 && loaded.out == "cli-pw-3", "\(loaded.out) \(loaded.err)")
            let listed = try await vault(["list", "--backend", "secret-service"])
            #expect(listed.status == 0 && listed.out.contains("bob") && listed.out.contains(server), "\(listed.out) \(listed.err)")
            // What secret-tool stored in vault's shape, vault loads.
            #expect(try await harness.secretTool(["store", "--label=r", "user", "relay", "server", "smtp.internal"], stdin: "relay-3").status == 0)
            let relay = try await vault(["load", "--backend", "secret-service", "--server", "smtp.internal", "--account", "relay"])
            #expect(relay.out == "relay-3", "\(relay.err)")

            let removed = try await vault(["remove", "--backend", "secret-service", "--server", server, "--account", "bob"])
            #expect(removed.status == 0, "\(removed.err)")
            #expect(harness.backing.current.credentials[key] == nil)
            #expect(!harness.log.text.contains("cli-pw-3"))
        }
    }
}
