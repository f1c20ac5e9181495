// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// Bad input to the sign-in and key-cache commands: one line on stderr, the documented exit
/// code, nothing stored, no network needed.
@Suite("Bad input to login, whoami, unlock and the key cache", .offThePool)
struct SignInBadInputTests {
    func run(_ arguments: [String], env extra: [String: String] = [:], stdin: String? = nil) async throws -> (ProcessResult, String) {
        try await withTemporaryDirectory("vault-badinput") { dir in
            var env = VaultProcess.fileBackendEnvironment(home: dir, file: "\(dir)/v.db", passphrase: "p")
            env.merge(extra) { $1 }
            let result = try await VaultProcess.vaultAsync(arguments, environment: env, stdin: stdin.map { Data($0.utf8) })
            #expect(!FileManager.default.fileExists(atPath: "\(dir)/v.db"), "nothing stored")
            return (result, dir)
        }
    }

    static let login = ["login", "--server", "https://api.example.com", "--account", "a"]
    static let cases: [([String], String)] = [
        (login + ["--provider", "oidc", "--client-id", "c"], "needs --issuer"),
        (login + ["--provider", "oidc", "--issuer", "https://id.example.com"], "needs --client-id"),
        (login + ["--device"], "need --provider oidc or oauth2"),
        (login + ["--provider", "oauth2", "--device", "--grant", "password", "--token-url", "https://id.example.com/t"], "contradict"),
        (login + ["--provider", "oidc", "--issuer", "http://id.example.com", "--client-id", "c"], "refusing plain http"),
        (["unlock", "--ttl", "0"], "--ttl must be"),
        // A URL that does not parse is shown without its user info (an attack review found them echoed).
        (login + ["--provider", "oauth2", "--client-id", "c", "--token-url", "u:hunter2@"], "not a URL: …@"),
        (login + ["--provider", "apple", "--client-id", "c", "--apple-url", "u:hunter2@"], "not a URL: …@"),
    ]

    @Test("each is refused with exit 2 and one line", arguments: cases)
    func refused(arguments: [String], message: String) async throws {
        let (result, _) = try await run(arguments)
        #expect(result.status == 2, "\(result.err)")
        #expect(result.err.contains(message), "\(result.err)")
        #expect(result.err.split(separator: "\n").count == 1 && result.out.isEmpty)
        #expect(!result.err.contains("hunter2"), "\(result.err)")
    }

    @Test("a VAULT_KEY_CACHE_TTL that is not whole seconds up to a week: exit 2, one line")
    func badTTL() async throws {
        let (result, _) = try await run(["list"], env: ["VAULT_KEY_CACHE_TTL": "ten"])
        #expect(result.status == 2 && result.err.contains("VAULT_KEY_CACHE_TTL must be"), "\(result.err)")
        #expect(result.err.split(separator: "\n").count == 1)
    }

    @Test(
        "a VAULT_LOCK_TIMEOUT, VAULT_REAUTH_COOLDOWN or VAULT_LOCK_DIR with a typo: exit 2, one line, never the default",
        arguments: [
            (["list"], "VAULT_LOCK_TIMEOUT", "abc"), (["remove", "--server", "s", "--account", "a"], "VAULT_LOCK_TIMEOUT", "nan"),
            (["token", "--server", "https://api.example.com", "--account", "a"], "VAULT_REAUTH_COOLDOWN", "-1"),
            (["status"], "VAULT_REAUTH_COOLDOWN", "nan"),
            (["token", "--server", "https://api.example.com", "--account", "a"], "VAULT_LOCK_DIR", "relative/locks"),
        ])
    func badLockAndCoolDownVariables(arguments: [String], variable: String, value: String) async throws {
        let (result, _) = try await run(arguments, env: [variable: value])
        #expect(result.status == 2 && result.err.contains("\(variable) must be"), "\(arguments) \(variable)=\(value): \(result.err)")
        #expect(result.err.hasPrefix("vault: ") && result.err.split(separator: "\n").count == 1, "\(result.err)")
    }

    @Test("a save with a relative VAULT_LOCK_DIR: exit 2, one line naming it, nothing stored, the secret never shown")
    func saveWithARelativeLockDirectory() async throws {
        let secret = "lock-dir-secret-5c1e"
        let (result, _) = try await run(["save", "--server", "s", "--account", "a"], env: ["VAULT_LOCK_DIR": "relative/locks"], stdin: secret)
        #expect(result.status == 2, "\(result.err)")
        #expect(result.err == "vault: VAULT_LOCK_DIR must be an absolute path\n", "\(result.err)")
        #expect(result.out.isEmpty && !result.err.contains(secret))
    }

    @Test("whoami for an account never logged in: exit 1, no account there (issue 38 §5.1)")
    func whoamiNotLoggedIn() async throws {
        let (result, _) = try await run(["whoami", "--server", "https://api.example.com", "--account", "a"])
        #expect(
            result.status == 1 && result.err == "vault: no account \"a\" on https://api.example.com (no account is logged in there)\n",
            "\(result.err)")
        #expect(result.out.isEmpty)
    }
}
