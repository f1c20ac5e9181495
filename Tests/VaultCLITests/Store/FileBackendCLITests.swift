// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

extension SynchronousProcessSuites {
    /// End-to-end tests of the `vault` command on the encrypted-file backend: real child
    /// processes, real files in temporary directories.
    @Suite final class FileBackendCLITests {
        let dir: String
        let passphrase = "pass-phrase-7f3a-do-not-print"
        let secret = "s3cret-value-91bd-do-not-print"

        init() throws {
            dir = try TemporaryDirectory.make(prefix: "vault-cli")
        }

        deinit { TemporaryDirectory.remove(dir) }

        var vaultFile: String { "\(dir)/data/vault/vault.db" }

        /// File backend, passphrase from a file, no terminal.
        var env: [String: String] {
            var env = VaultProcess.baseEnvironment(home: dir)
            env["VAULT_BACKEND"] = "file"
            env["VAULT_FILE"] = vaultFile
            env["VAULT_PASSPHRASE_FILE"] = passphraseFile
            return env
        }

        var passphraseFile: String {
            let path = "\(dir)/passphrase"
            if !FileManager.default.fileExists(atPath: path) {
                _ = FileManager.default.createFile(atPath: path, contents: Data((passphrase + "\n").utf8), attributes: [.posixPermissions: 0o600])
            }
            return path
        }

        func vault(_ args: String..., stdin: String? = nil, env: [String: String]? = nil) throws -> ProcessResult {
            try VaultProcess.vault(args, environment: env ?? self.env, stdin: stdin.map { Data($0.utf8) })
        }

        func expectNoLeak(_ result: ProcessResult, allowSecretOnStdout: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
            for needle in [secret, passphrase] {
                #expect(!result.err.contains(needle), "leak on stderr", sourceLocation: sourceLocation)
                if !(allowSecretOnStdout && needle == secret) {
                    #expect(!result.out.contains(needle), "leak on stdout", sourceLocation: sourceLocation)
                }
            }
        }

        @Test func allCommandsRoundTrip() throws {
            let saved = try vault("save", "--server", "api.example.com", "--account", "alice", "--verbose", stdin: secret + "\n")
            #expect(saved.status == 0, "\(saved.err)")
            expectNoLeak(saved)

            let loaded = try vault("load", "--server", "api.example.com", "--account", "alice", "-v")
            #expect(loaded.status == 0)
            #expect(loaded.out == secret, "one trailing newline dropped on save, none added on a pipe")
            expectNoLeak(loaded, allowSecretOnStdout: true)

            #expect(try vault("save", "--server", "api.example.com", "--account", "alice", "--label", "Alice", stdin: "updated").status == 0)
            #expect(try vault("load", "--server", "api.example.com", "--account", "alice").out == "updated")

            #expect(try vault("save", "--server", "other.example.com", "--account", "bob", stdin: secret).status == 0)
            let listed = try vault("list", "-v")
            #expect(listed.status == 0)
            #expect(listed.out == "api.example.com\talice\tAlice\nother.example.com\tbob\tvault: bob@other.example.com\n")
            expectNoLeak(listed)

            let json = try vault("list", "--json", "--server", "api.example.com")
            let items = try JSONSerialization.jsonObject(with: json.stdout) as? [[String: String]]
            #expect(items == [["server": "api.example.com", "account": "alice", "label": "Alice"]])

            let removed = try vault("remove", "--server", "api.example.com", "--account", "alice")
            #expect(removed.status == 0)
            #expect(try vault("remove", "--server", "api.example.com", "--account", "alice").status == 0, "idempotent")
            let missing = try vault("load", "--server", "api.example.com", "--account", "alice")
            #expect(missing.status == 1)
            #expect(missing.out.isEmpty)
            #expect(missing.err.split(separator: "\n").count == 1)
        }

        @Test func theFileHoldsNoPlaintext() throws {
            #expect(
                try vault("save", "--server", "needle-server.example", "--account", "needle-account", "--label", "needle-label", stdin: secret).status
                    == 0)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: vaultFile))
            for needle in [secret, "needle", "example", passphrase] {
                #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(needle) readable in the file")
            }
        }

        @Test func wrongPassphraseExits3WithOneLine() throws {
            #expect(try vault("save", "--server", "s", "--account", "a", stdin: secret).status == 0)
            var wrong = env
            wrong["VAULT_PASSPHRASE_FILE"] = nil
            wrong["VAULT_PASSPHRASE"] = "not the passphrase"
            let result = try vault("load", "--server", "s", "--account", "a", env: wrong)
            #expect(result.status == 3)
            #expect(result.out.isEmpty)
            #expect(result.err.hasSuffix("\n") && result.err.split(separator: "\n").count == 1)
            #expect(result.err.contains("wrong passphrase"))
            expectNoLeak(result)
        }

        /// Bytes of a vault file flipped in turn: exit 3 with one line, never a crash. Every
        /// byte of the header (97 bytes, docs/file-format.md) and of the tag, and every
        /// eighth of the ciphertext: `EncryptedFileStoreTests.everyFlippedByteIsDetected`
        /// flips every byte in-process, and each flip here is a `vault` process (all of them
        /// were the CLI pass's longest test, 148 s of a 161-s pass). Three at a time, each on
        /// a copy of its own.
        @Test func flippedBytesExit3() throws {
            #expect(try vault("save", "--server", "s", "--account", "a", stdin: secret).status == 0)
            let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: vaultFile)))
            let (header, tag) = (97, 16)
            let chosen = original.indices.filter { $0 < header || $0 >= original.count - tag || ($0 - header) % 8 == 0 }
            #expect(original.count > header + tag && chosen.count >= header + tag + (original.count - header - tag) / 8)
            let width = 3
            for first in stride(from: 0, to: chosen.count, by: width) {
                let offsets = chosen[first..<min(first + width, chosen.count)]
                let running = try offsets.map { offset in
                    var flipped = original
                    flipped[offset] ^= UInt8(1 << (offset % 8))
                    let copy = "\(dir)/flipped-\(offset).db"
                    try Data(flipped).write(to: URL(fileURLWithPath: copy))
                    chmod(copy, 0o600)
                    var flippedEnv = env
                    flippedEnv["VAULT_FILE"] = copy
                    let load = try ChildProcess.start(VaultProcess.vaultPath, ["load", "--server", "s", "--account", "a"], environment: flippedEnv)
                    return (offset, load)
                }
                for (offset, process) in running {
                    let result = try process.finish()
                    #expect(result.status == 3, "offset \(offset): exit \(result.status) \(result.err)")
                    #expect(!result.signalled, "offset \(offset) crashed")
                    #expect(result.out.isEmpty, "offset \(offset) printed something")
                    #expect(result.err.split(separator: "\n").count == 1)
                }
            }
        }

        @Test func truncatedAndFutureVersionFilesGiveClearErrors() throws {
            #expect(try vault("save", "--server", "s", "--account", "a", stdin: secret).status == 0)
            let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: vaultFile)))
            for length in [0, 4, 12, 96, original.count - 1] {
                try Data(original.prefix(length)).write(to: URL(fileURLWithPath: vaultFile))
                let result = try vault("load", "--server", "s", "--account", "a")
                #expect(result.status == 3, "length \(length): \(result.err)")
                #expect(result.err.contains("truncated") || result.err.contains("not a vault file") || result.err.contains("modified"))
            }
            var future = original
            future[8] = 0
            future[9] = 9
            try Data(future).write(to: URL(fileURLWithPath: vaultFile))
            let result = try vault("load", "--server", "s", "--account", "a")
            #expect(result.status == 3)
            #expect(result.err.contains("format version 9"))
        }

        @Test func concurrentSavesLoseNothing() throws {
            let count = 10
            let running = try (0..<count).map { index in
                try ChildProcess.start(
                    VaultProcess.vaultPath, ["save", "--server", "s", "--account", "user\(index)"], environment: env,
                    stdin: Data("secret-\(index)".utf8))
            }
            for process in running { #expect(try process.finish().status == 0) }
            let listed = try vault("list")
            #expect(listed.out.split(separator: "\n").count == count)
            for index in 0..<count {
                #expect(try vault("load", "--server", "s", "--account", "user\(index)").out == "secret-\(index)")
            }
        }

        /// Writers are SIGKILLed at random moments; every other one is held (a test-only
        /// delay) between writing its temporary file and renaming it, and killed exactly then;
        /// one in four completes.
        /// The vault must always open, keep every committed save, and lose only killed ones.
        @Test func killedWritersNeverDamageTheVault() async throws {
            var committed: Set<String> = []
            var killedMidWrite = 0
            var generator = SystemRandomNumberGenerator()
            for index in 0..<30 {
                let account = "acct\(index)"
                let midWrite = index % 2 == 1
                var writerEnv = env
                if midWrite { writerEnv["VAULT_TEST_WRITE_DELAY_MS"] = "500" }
                let staleTemporaryFiles = temporaryFiles()
                let process = try ChildProcess.start(
                    VaultProcess.vaultPath, ["save", "--server", "s", "--account", account], environment: writerEnv,
                    stdin: Data("v\(index)".utf8))
                if midWrite {
                    // The writer derives the key and reads the vault first: on a busy machine
                    // that once took a debug build more than 10 s. The wait ends as soon as
                    // its temporary file appears, so a wide bound costs nothing.
                    let deadline = Date().addingTimeInterval(Sanitizer.scaled(60.0))
                    while Date() < deadline, temporaryFiles().subtracting(staleTemporaryFiles).isEmpty { try await Task.sleep(for: .milliseconds(2)) }
                    if !temporaryFiles().subtracting(staleTemporaryFiles).isEmpty { killedMidWrite += 1 }
                } else if index % 4 == 0 {
                    _ = try await process.finishAsync()  // one in four runs to completion: commits to keep
                } else {
                    try await Task.sleep(for: .milliseconds(Int.random(in: 0...150, using: &generator)))
                }
                process.kill()
                let result = try await process.finishAsync()
                if result.status == 0, !result.signalled { committed.insert(account) }
                let listed = try await VaultProcess.vaultAsync(["list"], environment: env)
                #expect(listed.status == 0, "the vault must always open: \(listed.err)")
                let present = Set(listed.out.split(separator: "\n").compactMap { $0.split(separator: "\t").dropFirst().first.map(String.init) })
                #expect(committed.isSubset(of: present), "lost a committed save")
                if midWrite { #expect(!present.contains(account), "a write killed before its rename must not appear") }
                if present.contains(account) { committed.insert(account) }  // it landed before the kill: keep it for good
            }
            #expect(killedMidWrite == 15, "every held writer was killed mid-write: \(killedMidWrite)")
            #expect(committed.count >= 8, "the completed saves (and any that beat their kill) stayed: \(committed.count)")
            #expect(
                try await VaultProcess.vaultAsync(["save", "--server", "s", "--account", "last"], environment: env, stdin: Data("x".utf8)).status == 0
            )
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: "\(dir)/data/vault")
            #expect(leftovers.filter { $0.contains(".tmp-") }.isEmpty, "the next writer cleans up: \(leftovers)")
        }

        /// The writers' temporary files now beside the vault (a killed writer's stay until
        /// the next writer cleans up).
        private func temporaryFiles() -> Set<String> {
            Set(((try? FileManager.default.contentsOfDirectory(atPath: "\(dir)/data/vault")) ?? []).filter { $0.contains(".tmp-") })
        }

        @Test func permissionsArePrivateAndLooseFilesAreRefused() throws {
            #expect(try vault("save", "--server", "s", "--account", "a", stdin: secret).status == 0)
            let attributes = try FileManager.default.attributesOfItem(atPath: vaultFile)
            #expect(attributes[.posixPermissions] as? Int == 0o600)
            let dirAttributes = try FileManager.default.attributesOfItem(atPath: "\(dir)/data/vault")
            #expect(dirAttributes[.posixPermissions] as? Int == 0o700)
            chmod(vaultFile, 0o644)
            let result = try vault("load", "--server", "s", "--account", "a")
            #expect(result.status == 4)
            #expect(result.err.contains("chmod 600"))
            #expect(result.out.isEmpty)
        }

        @Test func noPassphraseAndNoTerminalFailsAtOnce() throws {
            var bare = env
            bare["VAULT_PASSPHRASE_FILE"] = nil
            // A wait for a passphrase that cannot come would be a hang: vault()'s bound ends it.
            let result = try vault("save", "--server", "s", "--account", "a", stdin: secret, env: bare)
            #expect(result.status == 2)
            #expect(result.err.contains("no passphrase"))
            expectNoLeak(result)
        }

        @Test func passwdReEncryptsUnderTheNewPassphrase() throws {
            #expect(try vault("save", "--server", "s", "--account", "a", stdin: secret).status == 0)
            let newFile = "\(dir)/new-passphrase"
            _ = FileManager.default.createFile(atPath: newFile, contents: Data("brand new phrase\n".utf8), attributes: [.posixPermissions: 0o600])
            let changed = try vault("passwd", "--new-passphrase-file", newFile)
            #expect(changed.status == 0, "\(changed.err)")
            #expect(try vault("load", "--server", "s", "--account", "a").status == 3, "old passphrase retired")
            var fresh = env
            fresh["VAULT_PASSPHRASE_FILE"] = newFile
            #expect(try vault("load", "--server", "s", "--account", "a", env: fresh).out == secret)
        }

        @Test func badUsageExits2() throws {
            #expect(try vault("load", "--server", "s").status == 2)
            #expect(try vault("frobnicate").status == 2)
            #expect(try vault("save", "--server", "s", "--account", "a", stdin: "").status == 2, "empty secret")
            #expect(try vault("save", "--server", "", "--account", "a", stdin: "x").status == 2)
            var env = self.env
            env["VAULT_BACKEND"] = "nonsense"
            #expect(try vault("list", env: env).status == 2)
            // A password in a server URL would land in the item's name and label: refused.
            for server in ["https://u:hunter2@ex.com/x", "https://u@ex.com"] {
                let refused = try vault("save", "--server", server, "--account", "a", stdin: "x")
                #expect(refused.status == 2, "\(server): \(refused.err)")
                #expect(refused.err.contains("user info") && !refused.err.contains("hunter2"), "\(refused.err)")
            }
            #expect(try vault("save", "--server", "https://ex.com/a@b", "--account", "a", stdin: "x").status == 0, "@ in a path is fine")
            // --prompt-timeout must be seconds above 0 and at most an hour: one line, exit 2.
            for value in ["0", "nan", "inf", "3601", "1e300", "abc"] {
                let refused = try vault("list", "--prompt-timeout", value)
                #expect(refused.status == 2, "\(value): \(refused.err)")
                #expect(refused.err.hasPrefix("vault: ") && refused.err.split(separator: "\n").count == 1, "\(value): \(refused.err)")
            }
            #expect(try vault("list", "--prompt-timeout", "5").status == 0)
            let help = try vault("--help")
            #expect(help.status == 0)
            #expect(help.out.contains("Exit codes"))
        }

        /// Bytes that are not UTF-8 would be replaced by U+FFFD, so two names would be one item.
        @Test func argumentsThatAreNotUTF8Exit2AndStoreNothing() throws {
            #expect(try vault("save", "--server", "s", "--account", "x\u{FFFD}y", stdin: "one").status == 0)
            let binDirectory = URL(fileURLWithPath: VaultProcess.vaultPath).deletingLastPathComponent()
            let authExecutable = binDirectory.appendingPathComponent("vault-auth").path
            let gitHelper = binDirectory.appendingPathComponent("git-credential-vault").path
            for (program, command) in [
                (VaultProcess.vaultPath, #"save --server s --account "$(printf 'x\377y')""#),
                (VaultProcess.vaultPath, #"load --server s --account "$(printf 'x\376y')""#),
                (VaultProcess.vaultPath, #"remove --server "$(printf 's\377')" --account x"#),
                (VaultProcess.vaultPath, #"request --server http://127.0.0.1:9 --account a "/$(printf '\377')""#),
                (authExecutable, #"save --server s --account "$(printf 'x\377y')""#),
                (gitHelper, #"--passphrase-file "$(printf 'p\377')" store"#),
            ] {
                let result = try ChildProcess.run(
                    "/bin/sh", ["-c", "exec \"$0\" \(command)", program], environment: env, stdin: Data("two".utf8), timeout: 30)
                #expect(result.status == 2, "\(command): \(result.err)")
                // Each program names itself and points at its own help: git's helper has options of its own.
                let name = program == gitHelper ? "git-credential-vault" : "vault"
                #expect(result.err.hasPrefix("\(name): argument ") && result.err.contains("is not UTF-8 text"), "\(command): \(result.err)")
                #expect(result.err.contains("(see \(name) --help)"), "\(command): \(result.err)")
                #expect(result.err.split(separator: "\n").count == 1 && result.out.isEmpty, "\(command): \(result.err)")
            }
            let listed = try vault("list")
            #expect(listed.status == 0 && listed.out.split(separator: "\n").count == 1, "nothing else stored: \(listed.out)")
            #expect(try vault("load", "--server", "s", "--account", "x\u{FFFD}y").out == "one")
        }
    }
}
