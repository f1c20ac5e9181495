// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport
import VaultTesting

@testable import VaultStore

/// Cheap work factor for tests (files record their own factor).
let testKDF = KDFParameters(log2N: 10)

@Suite(.cpuBound) struct EncryptedFileStoreTests {
    func makeStore(_ dir: String, passphrase: String = "correct horse") -> EncryptedFileStore {
        EncryptedFileStore(path: "\(dir)/sub/vault.db", passphrase: .fixed(Secret(passphrase)), kdf: testKDF)
    }

    @Test(arguments: StoreContract.Rule.allCases)
    func keepsTheContract(rule: StoreContract.Rule) throws {
        try withTemporaryDirectory("vault-test") { dir in
            try rule.verify(makeStore(dir))
        }
    }

    @Test func aSecondInstanceReadsWhatTheFirstWrote() throws {
        try withTemporaryDirectory("vault-test") { dir in
            try makeStore(dir).save(Credential(server: "s", account: "a", secret: Secret("x")))
            #expect(try makeStore(dir).load(server: "s", account: "a")?.secret == Secret("x"))
        }
    }

    /// A change edits the store's own copy of the contents in place (no copy per save): one
    /// that changes something and then says it changed nothing (the provider's faults) or
    /// throws writes nothing, and the next read sees the file as it is.
    @Test func aChangeThatGivesUpLeavesReadsAsTheFileIs() throws {
        try withTemporaryDirectory("vault-test") { dir in
            let store = makeStore(dir)
            try store.save(Credential(server: "s", account: "a", secret: Secret("kept")))
            let before = try Data(contentsOf: URL(fileURLWithPath: store.path))
            try store.modifyContents { contents in
                contents.credentials = [:]
                return false
            }
            #expect(try store.load(server: "s", account: "a")?.secret == Secret("kept"))
            #expect {
                try store.modifyContents { contents throws(VaultError) in
                    contents.credentials = [:]
                    throw VaultError.invalidInput("given up")
                }
            } throws: { sameCase($0, as: VaultError.invalidInput("")) }
            #expect(try store.load(server: "s", account: "a")?.secret == Secret("kept"))
            #expect(try store.list(server: nil).map(\.account) == ["a"])
            #expect(try Data(contentsOf: URL(fileURLWithPath: store.path)) == before, "nothing was written")
            // And a change that does change writes, and reads see it.
            try store.save(Credential(server: "s", account: "b", secret: Secret("new")))
            #expect(try store.list(server: nil).map(\.account) == ["a", "b"])
        }
    }

    @Test func filesArePrivate() throws {
        try withTemporaryDirectory("vault-test") { dir in
            let store = makeStore(dir)
            try store.save(Credential(server: "s", account: "a", secret: Secret("x")))
            let fileMode = try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? Int
            let dirMode = try FileManager.default.attributesOfItem(atPath: "\(dir)/sub")[.posixPermissions] as? Int
            #expect(fileMode == 0o600)
            #expect(dirMode == 0o700)
        }
    }

    @Test func refusesAFileOthersCanRead() throws {
        try withTemporaryDirectory("vault-test") { dir in
            let store = makeStore(dir)
            try store.save(Credential(server: "s", account: "a", secret: Secret("x")))
            chmod(store.path, 0o644)
            #expect { try makeStore(dir).load(server: "s", account: "a") } throws: { sameCase($0, as: VaultError.permission("")) }
            do throws(VaultError) {
                _ = try makeStore(dir).load(server: "s", account: "a")
            } catch {
                guard case .permission(let message) = error else { Issue.record("wrong error \(error)"); return }
                #expect(message.contains("chmod 600"))
            }
        }
    }

    @Test func wrongPassphraseIsDetected() throws {
        try withTemporaryDirectory("vault-test") { dir in
            try makeStore(dir).save(Credential(server: "s", account: "a", secret: Secret("x")))
            #expect(throws: VaultError.wrongPassphrase) {
                try makeStore(dir, passphrase: "wrong").load(server: "s", account: "a")
            }
        }
    }

    @Test func nothingAboutTheItemsIsReadable() throws {
        try withTemporaryDirectory("vault-test") { dir in
            let store = makeStore(dir)
            try store.save(
                Credential(server: "needle-server.example", account: "needle-account", secret: Secret("needle-secret"), label: "needle-label"))
            let bytes = try Data(contentsOf: URL(fileURLWithPath: store.path))
            for needle in ["needle", "example"] {
                #expect(bytes.range(of: Data(needle.utf8)) == nil)
            }
        }
    }

    @Test func everyFlippedByteIsDetected() throws {
        try withTemporaryDirectory("vault-test") { dir in
            let store = makeStore(dir)
            try store.save(Credential(server: "s", account: "a", secret: Secret("the secret")))
            let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: store.path)))
            for offset in original.indices {
                var flipped = original
                flipped[offset] ^= 0x01
                try Data(flipped).write(to: URL(fileURLWithPath: store.path))
                chmod(store.path, 0o600)
                #expect("offset \(offset)") { try makeStore(dir).load(server: "s", account: "a") } throws: {
                    sameCase($0, as: VaultError.corrupted(""), .unsupportedFormat(""), .wrongPassphrase)
                }
            }
        }
    }

    @Test func truncatedAndFutureFilesGiveClearErrors() throws {
        try withTemporaryDirectory("vault-test") { dir in
            let store = makeStore(dir)
            try store.save(Credential(server: "s", account: "a", secret: Secret("x")))
            let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: store.path)))
            for length in [0, 5, 9, 60, 100, original.count - 1] {
                try Data(original.prefix(length)).write(to: URL(fileURLWithPath: store.path))
                #expect("length \(length)") { try makeStore(dir).load(server: "s", account: "a") } throws: {
                    sameCase($0, as: VaultError.corrupted(""), .unsupportedFormat(""))
                }
            }
            var future = original
            future[9] = 3
            try Data(future).write(to: URL(fileURLWithPath: store.path))
            #expect(
                throws: VaultError.unsupportedFormat(
                    "the vault file has format version 3; this vault reads versions 1 and 2 only (upgrade vault)")
            ) {
                try makeStore(dir).load(server: "s", account: "a")
            }
        }
    }

    @Test func passphraseChangeKeepsItemsAndRetiresTheOldOne() throws {
        try withTemporaryDirectory("vault-test") { dir in
            let store = makeStore(dir)
            try store.save(Credential(server: "s", account: "a", secret: Secret("x")))
            try store.changePassphrase(to: Secret("new one"))
            #expect(try makeStore(dir, passphrase: "new one").load(server: "s", account: "a")?.secret == Secret("x"))
            #expect(throws: VaultError.wrongPassphrase) { try makeStore(dir).load(server: "s", account: "a") }
        }
    }

    @Test func loadWithoutAFileNeedsNoPassphrase() throws {
        try withTemporaryDirectory("vault-test") { dir in
            let store = EncryptedFileStore(
                path: "\(dir)/vault.db",
                passphrase: PassphraseSource { _ throws(VaultError) in throw .invalidInput("asked") }, kdf: testKDF)
            #expect(try store.load(server: "s", account: "a") == nil)
            #expect(try store.list().isEmpty)
            try store.remove(server: "s", account: "a")
        }
    }

    @Test func workFactorIsCappedWhenReading() throws {
        #expect { try KDFParameters(log2N: 30).checkReadable() } throws: { sameCase($0, as: VaultError.corrupted("")) }
        #expect { try KDFParameters(log2N: 20, r: 64).checkReadable() } throws: { sameCase($0, as: VaultError.corrupted("")) }
        try KDFParameters.default.checkReadable()
    }
}

/// Attack review 49, finding 1: a save waiting for the file's lock when an agent locked the
/// vault wrote the file with the dropped key once the lock came free.
@Suite("Encrypted file: dropped keys", .offThePool)
struct EncryptedFileDroppedKeysTests {
    @Test("a save waiting for the file's lock when the keys are dropped writes nothing; later calls answer locked")
    func aWaitingSaveWritesNothing() async throws {
        try await withTemporaryDirectory("vault-drop") { dir in
            let path = dir + "/vault.db"
            let store = EncryptedFileStore(path: path, passphrase: .fixed(Secret("pass")), kdf: testKDF, lockTimeout: .seconds(30))
            try store.save(Credential(server: "s", account: "a", secret: Secret("before")))
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let held = try FileLock(path: store.lockPath, timeout: .seconds(1))
            let waiting = Task { () -> Result<Void, VaultError> in
                do throws(VaultError) {
                    try await Blocking.run { () throws(VaultError) in
                        try store.save(Credential(server: "s", account: "a", secret: Secret("after")))
                    }
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            store.dropKeys()
            held.release()
            guard case .failure(.locked) = await waiting.value else {
                Issue.record("the waiting save did not end locked: \(await waiting.value)")
                return
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the file was written with the dropped key")
            #expect(throws: VaultError.keysDropped) { try store.load(server: "s", account: "a") }
            #expect(throws: VaultError.keysDropped) { try store.list() }
        }
    }
}
