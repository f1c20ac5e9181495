// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultTestSupport

/// `vault exec` gives the command the values it was bound to, not the vault: the command
/// inherits no `VAULT_*` variable and no `CREDENTIALS_DIRECTORY`, and exec leaves no key in
/// the key cache that was not there before, so the command cannot open the vault with what
/// vault was given. The command is a real shell that tries.
@Suite("Attack: what the command of vault exec can reach", .offThePool)
struct ExecReachAttackTests {
    static let secret = ExecCLITests.secret

    @Test("the command inherits no VAULT_* variable and no CREDENTIALS_DIRECTORY; a binding may still name one")
    func noVaultVariables() async throws {
        try await withAuthFixture { fixture in
            try await ExecCLITests.saveSecret(fixture)
            let credentials = "\(fixture.dir)/credentials"
            try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: false)
            _ = FileManager.default.createFile(
                atPath: "\(credentials)/vault-passphrase", contents: Data("fixture passphrase\n".utf8), attributes: [.posixPermissions: 0o600])
            let passphraseFile = "\(fixture.dir)/passphrase"
            _ = FileManager.default.createFile(
                atPath: passphraseFile, contents: Data("fixture passphrase\n".utf8), attributes: [.posixPermissions: 0o600])
            let extra = ["CREDENTIALS_DIRECTORY": credentials, "VAULT_PASSPHRASE_FILE": passphraseFile, "VAULT_SOMETHING": "else"]
            let result = try await fixture.vault(
                [
                    "exec", "--env", "DB_PASSWORD=alice@https://db.example.com", "--env", "VAULT_TOKEN=alice@https://db.example.com", "--",
                    "/usr/bin/env",
                ],
                env: extra)
            #expect(result.status == 0, "\(result.err)")
            let lines = result.out.split(separator: "\n").map(String.init)
            #expect(lines.contains("DB_PASSWORD=\(Self.secret)"), "the binding arrives")
            #expect(lines.contains("VAULT_TOKEN=\(Self.secret)"), "a binding may name a VAULT_ variable")
            let leaked = lines.filter { ($0.hasPrefix("VAULT_") && !$0.hasPrefix("VAULT_TOKEN=")) || $0.hasPrefix("CREDENTIALS_DIRECTORY=") }
            #expect(leaked.isEmpty, "vault's own settings reached the command: \(leaked)")
            #expect(!result.out.contains("fixture passphrase"))
        }
    }

    @Test(
        "with the key cache on and cold, the command cannot list or load the vault, and no key is left behind",
        .disabled(if: AgentBeside.servesWithItsPassphrase, "an agent given its passphrase serves every process of the user (README, vault exec)"))
    func noKeyLeftBehind() async throws {
        try await withAuthFixture { fixture in
            try await ExecCLITests.saveSecret(fixture)
            let file = "\(fixture.dir)/vault/vault.db"
            let cacheOn = ["VAULT_KEY_CACHE_TTL": "120"]
            // The command knows where the vault is and tries every way in that needs no passphrase.
            let attempt = """
                "$0" list --backend file --file "$1" >/dev/null 2>&1; echo "list=$?"
                "$0" load --backend file --file "$1" --server https://db.example.com --account alice 2>/dev/null; echo "load=$?"
                """
            let result = try await fixture.vault(
                ["exec", "--env", "DB_PASSWORD=alice@https://db.example.com", "--", "/bin/sh", "-c", attempt, VaultProcess.vaultPath, file],
                env: cacheOn)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out.contains("list=2") && result.out.contains("load=2"), "the command opened the vault: \(result.out)")
            #expect(!result.out.contains(Self.secret))
            // After exec: nothing was kept for this vault file.
            var noPassphrase = fixture.env.merging(cacheOn) { $1 }
            noPassphrase["VAULT_PASSPHRASE"] = nil
            let after = try await VaultProcess.vaultAsync(
                ["load", "--server", "https://db.example.com", "--account", "alice"], environment: noPassphrase)
            #expect(after.status == 2, "exec left a key in the cache: \(after.err)")
        }
    }

    @Test(
        "a key the user kept with vault unlock is usable by the command (documented), and vault lock takes it back",
        .disabled(if: KernelKeyring().unavailability != nil, "the kernel refuses key calls here"))
    func userKeptKeyIsShared() async throws {
        try await withAuthFixture { fixture in
            try await ExecCLITests.saveSecret(fixture)
            let file = "\(fixture.dir)/vault/vault.db"
            let cacheOn = ["VAULT_KEY_CACHE_TTL": "120"]
            #expect(try await fixture.vault(["unlock"], env: cacheOn).status == 0)
            let attempt = "\"$0\" list --backend file --file \"$1\" >/dev/null 2>&1; echo \"list=$?\""
            let warm = try await fixture.vault(
                ["exec", "--env", "S=alice@https://db.example.com", "--", "/bin/sh", "-c", attempt, VaultProcess.vaultPath, file], env: cacheOn)
            #expect(warm.out.contains("list=0"), "the user's own kept key serves every process of the user: \(warm.out)")
            #expect(try await fixture.vault(["lock"], env: cacheOn).status == 0)
            let locked = try await fixture.vault(
                ["exec", "--env", "S=alice@https://db.example.com", "--", "/bin/sh", "-c", attempt, VaultProcess.vaultPath, file], env: cacheOn)
            #expect(locked.out.contains("list=2"), "\(locked.out)")
        }
    }
}
