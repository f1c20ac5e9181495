// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// The same fixed client script (Tests/Helpers/secret-service-script: secret-tool,
/// SecretStorage, Python keyring) against gnome-keyring-daemon (Scripts/with-keyring) and
/// against vault's provider (Scripts/with-vault-secret-service): the transcripts must agree,
/// but for the deliberate differences listed here, each with its reason.
@Suite("vault's Secret Service provider agrees with GNOME Keyring", .offThePool) struct SecretServiceProviderComparisonTests {
    /// Lines that may differ, by their prefix: GNOME Keyring's line, vault's line, and why.
    static let deliberateDifferences: [(prefix: String, gnome: String, vault: String, reason: String)] = [
        (
            "binary content type: ", "binary content type: text/plain", "binary content type: application/octet-stream",
            "GNOME Keyring drops the content type a client gives (it answers text/plain for every item); the issue asks "
                + "items to be stored as the client gives them, content type included"
        ),
        (
            "search while locked: ", "search while locked: 2 items", "search while locked: 0 items",
            "GNOME Keyring keeps attributes unencrypted and lists locked items; the vault file is encrypted whole, so "
                + "while it is locked not even the attributes are known: a search finds nothing"
        ),
        (
            "get secret while locked: ", "get secret while locked: error LockedException",
            "get secret while locked: no item found to try", "the same: no locked item is listed to try"
        ),
    ]

    static let script = ProviderFixture.root + "/Tests/Helpers/secret-service-script"

    /// Runs the script through `wrapper` with `unlock` as SS_UNLOCK_COMMAND; its stdout lines.
    static func transcript(_ wrapper: String, unlock: String) async throws -> [String] {
        try await withTemporaryDirectory("vault-ss-compare") { home in
            var environment = VaultProcess.baseEnvironment(home: home)
            environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
            environment["VAULT_BIN"] = VaultProcess.vaultPath
            environment["SS_UNLOCK_COMMAND"] = unlock
            environment["TMPDIR"] = home
            // vault unlock hands the provider the key through the key cache (off in the tests' base environment).
            environment["VAULT_KEY_CACHE_TTL"] = "60"
            let run = try await ChildProcess.runAsync(
                ProviderFixture.root + "/Scripts/" + wrapper, [script, "cmp"], environment: environment, timeout: 300)
            #expect(run.status == 0, "\(wrapper): \(run.status)\n\(run.out)\n\(run.err)")
            return run.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
    }

    @Test("the client script's transcript under gnome-keyring-daemon and under vault agent --secret-service")
    func transcriptsAgree() async throws {
        // Both unlock a collection a client locked only with the password: GNOME Keyring's
        // through UnlockWithMasterPassword, vault's through `vault unlock` (a client's Lock
        // is `vault lock`: the agent and the key cache forget the key).
        let gnome = try await Self.transcript(
            "with-keyring",
            unlock: "printf %s \"$VAULT_KEYRING_PASSWORD\" | \(ProviderFixture.root)/Tests/Helpers/secret-service-unlock-gnome-keyring")
        let vault = try await Self.transcript(
            "with-vault-secret-service",
            unlock: "\"$VAULT_BIN\" unlock")
        #expect(gnome.count > 40, "GNOME Keyring's transcript is short: \(gnome)")
        #expect(gnome.count == vault.count, "gnome-keyring:\n\(gnome.joined(separator: "\n"))\n--- vault:\n\(vault.joined(separator: "\n"))")
        for (theirs, ours) in zip(gnome, vault) where theirs != ours {
            // GNOME Keyring sometimes adds the generic schema to an item stored without one
            // (seen on a fresh clone's run, not on others); vault keeps what the client gave.
            let withoutAddedSchema = theirs.replacingOccurrences(of: ", ('xdg:schema', 'org.freedesktop.Secret.Generic')", with: "")
            let allowed =
                withoutAddedSchema == ours || Self.deliberateDifferences.contains { $0.gnome == theirs && $0.vault == ours }
            #expect(allowed, "gnome-keyring: \(theirs)\nvault:         \(ours)")
        }
    }
}
