// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultTestSupport

/// The key cache may spare a person the passphrase, but never make a *given* passphrase
/// meaningless: with a key kept, a wrong passphrase still fails (exit 3), the one that was
/// current before `vault passwd` fails at once, and `vault lock --all` forgets every key
/// vault kept and nothing else. Real `vault` processes and the real kernel keyring.
/// These tests are part of ``KeyCacheCLITests`` (run one at a time, never beside another
/// test of the user's keyring).
extension KeyCacheCLITests {

    /// `vault` with `VAULT_PASSPHRASE` set to `passphrase` (the cache on).
    static func with(_ vault: Vault, passphrase: String) -> [String: String] {
        var env = vault.withoutPassphrase
        env["VAULT_PASSPHRASE"] = passphrase
        return env
    }

    /// A 0600 file in `dir` holding `text` and a newline.
    static func secretFile(_ dir: String, _ name: String, _ text: String) -> String {
        let path = "\(dir)/\(name)"
        _ = FileManager.default.createFile(atPath: path, contents: Data((text + "\n").utf8), attributes: [.posixPermissions: 0o600])
        return path
    }

    func expectCacheRefused(_ result: ProcessResult, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 3, "\(what): exit \(result.status) \(result.err)", sourceLocation: sourceLocation)
        #expect(
            result.err.hasPrefix("vault: ") && result.err.split(separator: "\n").count == 1, "\(what): \(result.err)", sourceLocation: sourceLocation)
        #expect(!result.out.contains(Self.secret), "\(what) printed the secret", sourceLocation: sourceLocation)
    }

    @Test("with the key kept, a wrong passphrase (variable or file) exits 3; the right one and none at all open it; -v names the cache")
    func wrongPassphraseWhileWarm() async throws {
        try await withTemporaryDirectory("vault-keycache-attack") { dir in
            let vault = Vault(dir: dir)
            defer { _ = try? VaultProcess.vault(["lock"], environment: vault.withoutPassphrase) }
            #expect(try await vault.save().status == 0)
            let warm = try await vault.load(vault.withoutPassphrase)
            #expect(warm.status == 0 && warm.out == Self.secret, "the key is kept: \(warm.err)")

            expectCacheRefused(try await vault.load(Self.with(vault, passphrase: "wrong passphrase")), "VAULT_PASSPHRASE=wrong")
            let wrongFile = Self.secretFile(dir, "wrong", "wrong passphrase")
            expectCacheRefused(
                try await vault.run(["load", "--server", "s", "--account", "a", "--passphrase-file", wrongFile], env: vault.withoutPassphrase),
                "--passphrase-file WRONG")
            var wrongFileVariable = vault.withoutPassphrase
            wrongFileVariable["VAULT_PASSPHRASE_FILE"] = wrongFile
            expectCacheRefused(try await vault.load(wrongFileVariable), "VAULT_PASSPHRASE_FILE=WRONG")
            let credentials = "\(dir)/credentials"
            try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: false)
            _ = Self.secretFile(credentials, "vault-passphrase", "wrong passphrase")
            var systemd = vault.withoutPassphrase
            systemd["CREDENTIALS_DIRECTORY"] = credentials
            expectCacheRefused(try await vault.load(systemd), "LoadCredential=vault-passphrase WRONG")
            expectCacheRefused(try await vault.run(["list"], env: Self.with(vault, passphrase: "wrong passphrase")), "list with a wrong passphrase")
            let save = try await vault.run(
                ["save", "--server", "s", "--account", "b"], env: Self.with(vault, passphrase: "wrong passphrase"), stdin: "x")
            expectCacheRefused(save, "save with a wrong passphrase")

            let right = try await vault.run(["load", "--server", "s", "--account", "a", "-v"], env: vault.withPassphrase)
            #expect(right.status == 0 && right.out == Self.secret, "\(right.err)")
            #expect(right.err.contains("came from the key cache"), "-v says where the key came from: \(right.err)")
            let none = try await vault.load(vault.withoutPassphrase)
            #expect(none.status == 0 && none.out == Self.secret, "no passphrase given: the kept key serves: \(none.err)")
            let items = try await vault.run(["list", "--json"], env: vault.withoutPassphrase)
            #expect(items.status == 0 && !items.out.contains("\"b\""), "the refused save wrote nothing: \(items.out)")
        }
    }

    @Test("after vault passwd the old passphrase exits 3 at once, cache or not; the new one and none open it")
    func oldPassphraseAfterPasswd() async throws {
        try await withTemporaryDirectory("vault-keycache-attack") { dir in
            let vault = Vault(dir: dir)
            defer { _ = try? VaultProcess.vault(["lock"], environment: vault.withoutPassphrase) }
            #expect(try await vault.save().status == 0)
            let newFile = Self.secretFile(dir, "new", "the new passphrase")
            let passwd = try await vault.run(["passwd", "--new-passphrase-file", newFile], env: vault.withPassphrase)
            #expect(passwd.status == 0, "\(passwd.err)")
            expectCacheRefused(try await vault.load(vault.withPassphrase), "the old passphrase after passwd (cache warm)")
            var cold = vault.withPassphrase
            cold["VAULT_KEY_CACHE_TTL"] = "0"
            expectCacheRefused(try await vault.load(cold), "the old passphrase after passwd (cache off)")
            let fresh = try await vault.load(Self.with(vault, passphrase: "the new passphrase"))
            #expect(fresh.status == 0 && fresh.out == Self.secret, "\(fresh.err)")
            let none = try await vault.load(vault.withoutPassphrase)
            #expect(none.status == 0 && none.out == Self.secret, "\(none.err)")
        }
    }

    @Test("vault passwd needs and checks the current passphrase even with the key kept")
    func passwdChecksTheCurrentPassphrase() async throws {
        try await withTemporaryDirectory("vault-keycache-attack") { dir in
            let vault = Vault(dir: dir)
            defer { _ = try? VaultProcess.vault(["lock"], environment: vault.withoutPassphrase) }
            #expect(try await vault.save().status == 0)
            let before = try Data(contentsOf: URL(fileURLWithPath: vault.file))
            let newFile = Self.secretFile(dir, "new", "the new passphrase")
            let wrong = try await vault.run(
                ["passwd", "--new-passphrase-file", newFile], env: Self.with(vault, passphrase: "wrong passphrase"))
            expectCacheRefused(wrong, "passwd with a wrong current passphrase")
            let none = try await vault.run(["passwd", "--new-passphrase-file", newFile], env: vault.withoutPassphrase)
            #expect(none.status == 2 && none.err.contains("no passphrase"), "passwd without the current one: \(none.err)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: vault.file)) == before, "the vault file is unchanged")
        }
    }

    @Test("vault unlock needs the passphrase even with the key kept: a kept key never lengthens its own life")
    func unlockNeedsThePassphrase() async throws {
        try await withTemporaryDirectory("vault-keycache-attack") { dir in
            let vault = Vault(dir: dir, ttl: 60)
            defer { _ = try? VaultProcess.vault(["lock"], environment: vault.withoutPassphrase) }
            #expect(try await vault.save().status == 0)
            let none = try await vault.run(["unlock", "--ttl", "604800"], env: vault.withoutPassphrase)
            #expect(none.status == 2 && none.err.contains("no passphrase"), "unlock without a passphrase: \(none.err)")
            expectCacheRefused(
                try await vault.run(["unlock", "--ttl", "604800"], env: Self.with(vault, passphrase: "wrong passphrase")), "unlock, wrong passphrase")
            let timeouts = try String(contentsOfFile: "/proc/keys", encoding: .utf8).split(separator: "\n").filter { $0.contains(" vault:") }
            #expect(!timeouts.contains { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first == "1w" }, "\(timeouts)")
            let right = try await vault.run(["unlock", "--ttl", "90"], env: vault.withPassphrase)
            #expect(right.status == 0 && right.err.contains("kept for 90 s"), "\(right.err)")
        }
    }

    @Test("two passwd at once with the key kept: afterwards exactly one of the three passphrases opens the vault")
    func concurrentPasswd() async throws {
        try await withTemporaryDirectory("vault-keycache-attack") { dir in
            let vault = Vault(dir: dir)
            defer { _ = try? VaultProcess.vault(["lock"], environment: vault.withoutPassphrase) }
            #expect(try await vault.save().status == 0)
            let first = Self.secretFile(dir, "first", "first new passphrase")
            let second = Self.secretFile(dir, "second", "second new passphrase")
            async let a = vault.run(["passwd", "--new-passphrase-file", first], env: vault.withPassphrase)
            async let b = vault.run(["passwd", "--new-passphrase-file", second], env: vault.withPassphrase)
            let results = try await [a, b]
            #expect(results.filter { $0.status == 0 }.count >= 1, "\(results.map(\.err))")
            var opening: [String] = []
            for passphrase in ["cache passphrase", "first new passphrase", "second new passphrase"] {
                if try await vault.load(Self.with(vault, passphrase: passphrase)).status == 0 { opening.append(passphrase) }
            }
            #expect(opening.count == 1, "exactly one passphrase opens the vault: \(opening)")
        }
    }

    /// Runs `command` (a shell line) as uid and gid 4243 with `environment`: a user keyring of
    /// its own, so `vault lock --all` never touches the keys of whoever runs the tests.
    static func asOtherUser(_ command: String, environment: [String: String]) async throws -> ProcessResult {
        try await ChildProcess.runAsync(
            "/usr/bin/setpriv", ["--reuid=4243", "--regid=4243", "--clear-groups", "--", "/bin/sh", "-c", command],
            environment: environment, timeout: 60)
    }

    @Test(
        "vault lock --all forgets every vault key of the user and leaves other keys alone (as uid 4243)",
        .enabled(if: getuid() == 0, "needs root to run as another uid"))
    func lockAll() async throws {
        try await withTemporaryDirectory("vault-keycache-attack") { dir in
            guard chown(dir, 4243, 4243) == 0, chmod(dir, 0o700) == 0 else { throw CancellationError() }
            let vault = VaultProcess.vaultPath
            var env = VaultProcess.baseEnvironment(home: dir)
            env["VAULT_BACKEND"] = "file"
            env["VAULT_KEY_CACHE_TTL"] = "120"
            // A key of the same user that vault did not write (its name starts like vault's),
            // added with add_key(2) from Python.
            let addNeighbour = """
                python3 -c 'import ctypes, os; n = {"x86_64": 248, "aarch64": 217}[os.uname().machine]; \
                print(ctypes.CDLL(None, use_errno=True).syscall(n, b"user", b"vault:mine-not-vaults", b"not vaults", 10, -4))'
                """
            // Live keys only: an invalidated key stays in /proc/keys (flag i) until the kernel
            // collects it. The test user starts with none of vault's. (mawk has no {32}.)
            let liveVaultKeys =
                #"awk '$2 !~ /[iRD]/ && $4 != "expd" && $8 == "user" && length($9) == 39 && $9 ~ /^vault:[0-9a-f]+:$/' "#
                + "/proc/keys | wc -l"
            let script = """
                set -u
                "$VAULT" lock --all >/dev/null 2>&1
                for name in a b; do
                    printf '%s' "secret-$name" |
                        VAULT_PASSPHRASE="passphrase $name" "$VAULT" save --server s --account a --file "$DIR/$name.db" || exit 10
                done
                \(addNeighbour) >/dev/null || exit 11
                \(liveVaultKeys)
                "$VAULT" lock --all 2>&1 || exit 12
                for name in a b; do
                    "$VAULT" load --server s --account a --file "$DIR/$name.db" 2>/dev/null; echo " load-$name=$?"
                done
                \(liveVaultKeys)
                grep -c 'vault:mine-not-vaults' /proc/keys
                """
            env["VAULT"] = vault
            env["DIR"] = dir
            let result = try await Self.asOtherUser(script, environment: env)
            let lines = result.out.split(separator: "\n").map(String.init)
            #expect(result.status == 0, "\(result.out) \(result.err)")
            #expect(lines.first == "2", "both vault keys were kept before: \(lines)")
            #expect(lines.contains { $0.hasPrefix("vault: removed 2 kept keys") }, "\(lines)")
            #expect(lines.contains(" load-a=2") && lines.contains(" load-b=2"), "both need a passphrase again: \(lines)")
            #expect(lines.suffix(2) == ["0", "1"], "no vault key is left; the neighbour is: \(lines)")
            #expect(!result.out.contains("secret-a") && !result.out.contains("secret-b"))
        }
    }
}
