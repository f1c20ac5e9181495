// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

extension SynchronousProcessSuites {
    /// A passphrase with a NUL byte is refused wherever one is taken (issue 27, finding 4:
    /// scrypt's PBKDF2-HMAC pads a short key with zero bytes, so `P` + NUL opened a vault
    /// made with `P`): exit 2, one line on stderr, the vault file untouched.
    @Suite final class PassphraseNulCLITests {
        let dir: String
        let passphrase = "nul-test-phrase-5c1e"

        init() throws {
            dir = try TemporaryDirectory.make(prefix: "vault-nul")
        }

        deinit { TemporaryDirectory.remove(dir) }

        var vaultFile: String { "\(dir)/vault.db" }

        /// A 0600 file holding `bytes`.
        func file(_ name: String, _ bytes: [UInt8]) -> String {
            let path = "\(dir)/\(name)"
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
            return path
        }

        func environment(passphraseFile: String?) -> [String: String] {
            var environment = VaultProcess.baseEnvironment(home: dir)
            environment["VAULT_BACKEND"] = "file"
            environment["VAULT_FILE"] = vaultFile
            environment["VAULT_PASSPHRASE_FILE"] = passphraseFile
            return environment
        }

        func vault(_ arguments: [String], stdin: [UInt8]? = nil, environment: [String: String]) throws -> ProcessResult {
            try VaultProcess.vault(arguments, environment: environment, stdin: stdin.map { Data($0) })
        }

        /// Exit 2, one line on stderr naming the NUL byte (after `notice`, the first save's
        /// line that a new vault file is made, when given), nothing on stdout, no passphrase anywhere.
        func expectRefused(_ result: ProcessResult, _ what: String, notice: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(result.status == 2, "\(what): \(result.status) \(result.err)", sourceLocation: sourceLocation)
            #expect(result.out.isEmpty, "\(what): \(result.out)", sourceLocation: sourceLocation)
            #expect(
                result.err == (notice.map { "vault: \($0)\n" } ?? "") + "vault: the passphrase must not contain a NUL byte\n",
                "\(what): \(result.err)", sourceLocation: sourceLocation)
            #expect(!result.err.contains(passphrase), sourceLocation: sourceLocation)
        }

        @Test func aPassphraseWithANulByteIsRefusedAndChangesNothing() throws {
            let good = environment(passphraseFile: file("good", Array((passphrase + "\n").utf8)))
            let saved = try vault(["save", "--server", "s", "--account", "a"], stdin: Array("nul-secret".utf8), environment: good)
            #expect(saved.status == 0, "\(saved.err)")
            let before = try Data(contentsOf: URL(fileURLWithPath: vaultFile))
            let trailing = Array(passphrase.utf8) + [0, 0, 0x0A]
            let inside = Array("nul-test".utf8) + [0] + Array("phrase-5c1e".utf8)

            // A passphrase file (VAULT_PASSPHRASE_FILE, --passphrase-file).
            expectRefused(
                try vault(["load", "--server", "s", "--account", "a"], environment: environment(passphraseFile: file("trail", trailing))), "file")
            expectRefused(
                try vault(
                    ["load", "--server", "s", "--account", "a", "--passphrase-file", file("inside", inside)],
                    environment: environment(passphraseFile: nil)),
                "--passphrase-file")
            // Standard input as the passphrase file.
            expectRefused(
                try vault(
                    ["load", "--server", "s", "--account", "a", "--passphrase-file", "-"], stdin: trailing,
                    environment: environment(passphraseFile: nil)),
                "stdin")
            // systemd's LoadCredential.
            let credentials = "\(dir)/credentials"
            try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            _ = FileManager.default.createFile(
                atPath: "\(credentials)/vault-passphrase", contents: Data(trailing), attributes: [.posixPermissions: 0o600])
            var loadCredential = environment(passphraseFile: nil)
            loadCredential["CREDENTIALS_DIRECTORY"] = credentials
            expectRefused(try vault(["load", "--server", "s", "--account", "a"], environment: loadCredential), "LoadCredential")
            // A save under it changes nothing either.
            expectRefused(
                try vault(
                    ["save", "--server", "s", "--account", "b"], stdin: Array("other".utf8),
                    environment: environment(passphraseFile: file("trail2", trailing))),
                "save")
            // vault passwd's new passphrase.
            expectRefused(try vault(["passwd", "--new-passphrase-file", file("new", Array("brand-new".utf8) + [0])], environment: good), "passwd")
            #expect(try Data(contentsOf: URL(fileURLWithPath: vaultFile)) == before, "the vault file changed")
            #expect(try vault(["load", "--server", "s", "--account", "a"], environment: good).out == "nul-secret")

            // A new vault is not made under such a passphrase, and nothing says it is (issue 38 §5.7).
            var fresh = environment(passphraseFile: file("trail3", trailing))
            fresh["VAULT_FILE"] = "\(dir)/fresh.db"
            expectRefused(try vault(["save", "--server", "s", "--account", "a"], stdin: Array("x".utf8), environment: fresh), "new vault")
            #expect(!FileManager.default.fileExists(atPath: "\(dir)/fresh.db"))
        }
    }
}
