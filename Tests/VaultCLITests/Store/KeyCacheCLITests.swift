// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultTestSupport

/// The file backend's key cache in the real kernel keyring, through real `vault` processes.
/// Skipped (and reported) where the kernel refuses key calls, as in containers whose seccomp
/// filter blocks them; the store's behaviour there is tested with a double (`KeyCacheTests`).
@Suite(
    "vault lock / unlock: the key cache in the kernel keyring",
    .serialized, .disabled(if: KernelKeyring().unavailability != nil, "the kernel refuses key calls here"), .offThePool)
struct KeyCacheCLITests {
    static let secret = "cached-secret-3c1d"

    /// A vault file in `dir`; its environment with the passphrase and the cache on (`ttl`),
    /// and the same without any passphrase source (no terminal either: asking is exit 2).
    struct Vault {
        let file: String
        let withPassphrase: [String: String]
        var withoutPassphrase: [String: String] { withPassphrase.filter { $0.key != "VAULT_PASSPHRASE" } }

        init(dir: String, name: String = "vault.db", passphrase: String = "cache passphrase", ttl: Int = 120) {
            file = "\(dir)/\(name)"
            var env = VaultProcess.fileBackendEnvironment(home: dir, file: file, passphrase: passphrase)
            env["VAULT_KEY_CACHE_TTL"] = String(ttl)
            withPassphrase = env
        }

        func run(_ arguments: [String], env: [String: String], stdin: String? = nil) async throws -> ProcessResult {
            try await VaultProcess.vaultAsync(arguments, environment: env, stdin: stdin.map { Data($0.utf8) })
        }

        func save(_ secret: String = KeyCacheCLITests.secret, env: [String: String]? = nil) async throws -> ProcessResult {
            try await run(["save", "--server", "s", "--account", "a"], env: env ?? withPassphrase, stdin: secret)
        }

        func load(_ env: [String: String]) async throws -> ProcessResult {
            try await run(["load", "--server", "s", "--account", "a"], env: env)
        }
    }

    /// The ids of the `vault:` keys of type user that this user can see (`/proc/keys`).
    static func vaultKeyIDs() -> Set<String> {
        let text = (try? String(contentsOfFile: "/proc/keys", encoding: .utf8)) ?? ""
        return Set(
            text.split(separator: "\n").filter { $0.contains(" user ") && $0.contains(" vault:") }
                .compactMap { $0.split(separator: " ").first.map(String.init) })
    }

    @Test("used without a passphrase while kept; vault lock empties it (exit 2 again); vault unlock --ttl fills it")
    func usedLockedUnlocked() async throws {
        try await withTemporaryDirectory("vault-keycache") { dir in
            let vault = Vault(dir: dir)
            let saved = try await vault.save()
            #expect(saved.status == 0, "\(saved.err)")
            let cached = try await vault.load(vault.withoutPassphrase)
            #expect(cached.status == 0 && cached.out == Self.secret, "\(cached.err)")

            #expect(try await vault.run(["lock"], env: vault.withoutPassphrase).status == 0)
            let locked = try await vault.load(vault.withoutPassphrase)
            #expect(locked.status == 2, "\(locked.err)")
            #expect(!locked.out.contains(Self.secret))

            let unlocked = try await vault.run(["unlock", "--ttl", "60"], env: vault.withPassphrase)
            #expect(unlocked.status == 0 && unlocked.err.contains("kept for 60 s"), "\(unlocked.err)")
            #expect(try await vault.load(vault.withoutPassphrase).out == Self.secret)
            #expect(try await vault.run(["lock"], env: vault.withoutPassphrase).status == 0)

            let off = try await vault.run(["load", "--server", "s", "--account", "a", "--no-key-cache", "--verbose"], env: vault.withPassphrase)
            #expect(off.status == 0 && off.err.contains("key cache off"), "\(off.err)")
            #expect(try await vault.load(vault.withoutPassphrase).status == 2, "--no-key-cache neither used nor filled it")
        }
    }

    /// Issue 37, finding 8: a cron job given the passphrase refilled the cache seconds after
    /// a deliberate lock, and the docs suggested only `vault unlock` did. The rule chosen,
    /// and written in the README: any command that opens the vault with a passphrase while
    /// the cache is on keeps the key again; the cache turned off for it keeps the lock.
    @Test("after vault lock: a command given the passphrase with the cache on keeps the key again; with VAULT_KEY_CACHE_TTL=0 the lock holds")
    func whatRefillsTheCache() async throws {
        try await withTemporaryDirectory("vault-keycache") { dir in
            let vault = Vault(dir: dir)
            #expect(try await vault.save().status == 0)
            #expect(try await vault.run(["lock"], env: vault.withoutPassphrase).status == 0)
            var cronWithoutCache = vault.withPassphrase
            cronWithoutCache["VAULT_KEY_CACHE_TTL"] = "0"
            let cron = try await vault.load(cronWithoutCache)
            #expect(cron.status == 0 && cron.out == Self.secret, "\(cron.err)")
            #expect(try await vault.load(vault.withoutPassphrase).status == 2, "the lock held")
            let refilled = try await vault.run(["load", "--server", "s", "--account", "a", "-v"], env: vault.withPassphrase)
            #expect(refilled.status == 0 && refilled.out == Self.secret, "\(refilled.err)")
            let after = try await vault.load(vault.withoutPassphrase)
            #expect(after.status == 0 && after.out == Self.secret, "a command with the passphrase and the cache on keeps the key: \(after.err)")
            #expect(try await vault.run(["lock"], env: vault.withoutPassphrase).status == 0)
        }
    }

    @Test(
        "a kept key expires with the kernel's timeout",
        .disabled(if: AgentBeside.servesWithItsPassphrase, "an agent given its passphrase holds the key until vault lock (docs/agent.md)"))
    func expires() async throws {
        try await withTemporaryDirectory("vault-keycache") { dir in
            let vault = Vault(dir: dir, ttl: 1)
            #expect(try await vault.save().status == 0)
            #expect(try await vault.run(["unlock", "--ttl", "1"], env: vault.withPassphrase).status == 0)
            try await Task.sleep(for: .milliseconds(2500))
            let expired = try await vault.load(vault.withoutPassphrase)
            #expect(expired.status == 2, "\(expired.err)")
        }
    }

    @Test("one key per vault file: two files with two passphrases are both opened from the cache")
    func perFile() async throws {
        try await withTemporaryDirectory("vault-keycache") { dir in
            let first = Vault(dir: dir, name: "a.db", passphrase: "first passphrase")
            let second = Vault(dir: dir, name: "b.db", passphrase: "second passphrase")
            #expect(try await first.save("first-secret").status == 0)
            #expect(try await second.save("second-secret").status == 0)
            #expect(try await first.load(first.withoutPassphrase).out == "first-secret")
            #expect(try await second.load(second.withoutPassphrase).out == "second-secret")
            for vault in [first, second] { _ = try await vault.run(["lock"], env: vault.withoutPassphrase) }
        }
    }

    @Test("after another process changes the passphrase, the old key is gone and opens nothing")
    func passphraseChangedElsewhere() async throws {
        try await withTemporaryDirectory("vault-keycache") { dir in
            let vault = Vault(dir: dir)
            #expect(try await vault.save().status == 0)
            let newFile = "\(dir)/new-passphrase"
            _ = FileManager.default.createFile(atPath: newFile, contents: Data("changed passphrase\n".utf8), attributes: [.posixPermissions: 0o600])
            var other = vault.withPassphrase
            other["VAULT_KEY_CACHE_TTL"] = "0"  // the other process does not use the cache at all
            let passwd = try await vault.run(["passwd", "--new-passphrase-file", newFile], env: other)
            #expect(passwd.status == 0, "\(passwd.err)")
            let after = try await vault.load(vault.withoutPassphrase)
            #expect(after.status == 2, "the key kept for the old passphrase is not used on the re-keyed file: \(after.err)")
            var oldPassphrase = vault.withPassphrase
            oldPassphrase["VAULT_KEY_CACHE_TTL"] = "0"
            #expect(try await vault.load(oldPassphrase).status == 3, "the old passphrase is wrong now")
        }
    }

    @Test("another user cannot read a kept key (a reader run as nobody is refused)")
    func otherUserIsRefused() async throws {
        guard getuid() == 0 else { return }  // switching users needs root; CI runs as root
        try await withTemporaryDirectory("vault-keycache") { dir in
            let vault = Vault(dir: dir)
            let before = Self.vaultKeyIDs()  // before the save, which keeps the new file's key
            #expect(try await vault.save().status == 0)
            #expect(try await vault.run(["unlock", "--ttl", "60"], env: vault.withPassphrase).status == 0)
            let created = Self.vaultKeyIDs().subtracting(before)
            let id = try #require(created.first.flatMap { Int($0, radix: 16) }, "the kept key is listed in /proc/keys")
            let reader = """
                import ctypes, sys
                libc = ctypes.CDLL(None, use_errno=True)
                buffer = ctypes.create_string_buffer(64)
                n = libc.syscall(250, 11, int(sys.argv[1]), buffer, 64)
                print("read", n, ctypes.get_errno())
                sys.exit(0 if n < 0 else 1)
                """
            let asRoot = try await ChildProcess.runAsync("/usr/bin/python3", ["-c", reader, String(id)], environment: ["PATH": "/usr/bin:/bin"])
            #expect(asRoot.status == 1, "the owner can read it (so the probe works): \(asRoot.out)")
            let asNobody = try await ChildProcess.runAsync(
                "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", reader, String(id)],
                environment: ["PATH": "/usr/bin:/bin"])
            #expect(asNobody.status == 0, "nobody is refused: \(asNobody.out) \(asNobody.err)")
            #expect(asNobody.out.contains(" 13") || asNobody.out.contains(" 126"), "EACCES or ENOKEY: \(asNobody.out)")
            _ = try await vault.run(["lock"], env: vault.withoutPassphrase)
        }
    }
}
