// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultSync
import VaultTestSupport
import VaultTesting

@testable import VaultStore

/// A passphrase source that counts how often it is asked.
final class CountingPassphrase: Sendable {
    private let count = Locked(0)
    let passphrase: Secret
    init(_ text: String) { passphrase = Secret(text) }
    var asked: Int { count.withLock { $0 } }
    var source: PassphraseSource {
        PassphraseSource { [self] _ throws(VaultError) in
            count.withLock { $0 += 1 }
            return passphrase
        }
    }
}

@Suite("The file backend's key cache (with an in-memory double of the kernel keyring)", .offThePool)
struct KeyCacheTests {
    let kdf = KDFParameters(log2N: 10)
    let item = Credential(key: CredentialKey(server: "s", account: "a"), secret: Secret("value"))

    func store(_ path: String, _ passphrase: CountingPassphrase, cache: MemoryKeyCache?) -> EncryptedFileStore {
        EncryptedFileStore(
            path: path, passphrase: passphrase.source, kdf: kdf, keyCache: cache.map { KeyCachePolicy(cache: $0, lifetime: 60) })
    }

    @Test("a second process takes the kept key and never asks for the passphrase")
    func keptKeyIsUsed() throws {
        try withTemporaryDirectory("keycache") { dir in
            let cache = MemoryKeyCache()
            let first = CountingPassphrase("pass-1")
            try store("\(dir)/v.db", first, cache: cache).save(item)
            #expect(cache.names.count == 1, "the new file's key is kept")
            let second = CountingPassphrase("not asked")
            #expect(try store("\(dir)/v.db", second, cache: cache).load(item.key)?.secret == Secret("value"))
            #expect(second.asked == 0)
            try store("\(dir)/v.db", second, cache: cache).forgetCachedKey()
            #expect(cache.names.isEmpty)
        }
    }

    @Test("a kept key that does not open the file is dropped, and the passphrase decides")
    func wrongKeptKeyIsDropped() throws {
        try withTemporaryDirectory("keycache") { dir in
            let cache = MemoryKeyCache()
            try store("\(dir)/v.db", CountingPassphrase("pass-1"), cache: cache).save(item)
            let name = try #require(cache.names.first)
            cache.put(name, [UInt8](repeating: 7, count: 32))
            let asked = CountingPassphrase("pass-1")
            #expect(try store("\(dir)/v.db", asked, cache: cache).load(item.key)?.secret == Secret("value"))
            #expect(asked.asked == 1)
            #expect(cache.load(name) != [UInt8](repeating: 7, count: 32), "replaced by the right key")
            cache.put(name, [UInt8](repeating: 7, count: 32))
            #expect(throws: VaultError.wrongPassphrase) { try store("\(dir)/v.db", CountingPassphrase("wrong"), cache: cache).load(item.key) }
        }
    }

    @Test("a cache that refuses everything changes nothing but the speed")
    func refusingCache() throws {
        try withTemporaryDirectory("keycache") { dir in
            let cache = MemoryKeyCache(refusing: true)
            try store("\(dir)/v.db", CountingPassphrase("pass-1"), cache: cache).save(item)
            let asked = CountingPassphrase("pass-1")
            #expect(try store("\(dir)/v.db", asked, cache: cache).load(item.key)?.secret == Secret("value"))
            #expect(asked.asked == 1)
            #expect(store("\(dir)/v.db", asked, cache: cache).keyCacheUnavailability == "refused by the test")
        }
    }

    @Test("passwd needs the current passphrase even with a kept key; it drops the old key and keeps the new one")
    func passwdWithAKeptKey() throws {
        try withTemporaryDirectory("keycache") { dir in
            let cache = MemoryKeyCache()
            try store("\(dir)/v.db", CountingPassphrase("pass-1"), cache: cache).save(item)
            let oldName = try #require(cache.names.first)
            #expect(throws: VaultError.wrongPassphrase) {
                try store("\(dir)/v.db", CountingPassphrase("guess"), cache: cache).changePassphrase(to: Secret("pass-2"))
            }
            try store("\(dir)/v.db", CountingPassphrase("pass-1"), cache: cache).changePassphrase(to: Secret("pass-2"))
            #expect(cache.load(oldName) == nil)
            #expect(cache.names.count == 1 && cache.names.first != oldName)
            let notAsked = CountingPassphrase("none")
            #expect(try store("\(dir)/v.db", notAsked, cache: cache).load(item.key)?.secret == Secret("value"))
            #expect(notAsked.asked == 0)
        }
    }

    @Test("two files, two passphrases: each key is kept under its own name")
    func perFile() throws {
        try withTemporaryDirectory("keycache") { dir in
            let cache = MemoryKeyCache()
            try store("\(dir)/a.db", CountingPassphrase("pass-a"), cache: cache).save(item)
            try store("\(dir)/b.db", CountingPassphrase("pass-b"), cache: cache)
                .save(Credential(key: item.key, secret: Secret("other")))
            #expect(cache.names.count == 2)
            let none = CountingPassphrase("none")
            #expect(try store("\(dir)/a.db", none, cache: cache).load(item.key)?.secret == Secret("value"))
            #expect(try store("\(dir)/b.db", none, cache: cache).load(item.key)?.secret == Secret("other"))
            #expect(none.asked == 0)
        }
    }

    /// A store whose passphrase is *given* (``PassphraseSource/fixed(_:)``), as a file or a variable is.
    func given(_ path: String, _ passphrase: String, cache: MemoryKeyCache, storesNewKeys: Bool = true) -> EncryptedFileStore {
        EncryptedFileStore(
            path: path, passphrase: .fixed(Secret(passphrase)), kdf: kdf,
            keyCache: KeyCachePolicy(cache: cache, lifetime: 60, storesNewKeys: storesNewKeys))
    }

    @Test("a kept key never makes a given passphrase meaningless: a wrong one fails, the right one opens")
    func givenPassphraseIsChecked() throws {
        try withTemporaryDirectory("keycache") { dir in
            let cache = MemoryKeyCache()
            try given("\(dir)/v.db", "pass-1", cache: cache).save(item)
            let name = try #require(cache.names.first)
            #expect(cache.load(name)?.count == 64, "the key is kept with its passphrase's verifier")
            #expect(throws: VaultError.wrongPassphrase) { try given("\(dir)/v.db", "wrong", cache: cache).load(item.key) }
            #expect(throws: VaultError.wrongPassphrase) { try given("\(dir)/v.db", "wrong", cache: cache).list(server: nil) }
            #expect(throws: VaultError.wrongPassphrase) {
                try given("\(dir)/v.db", "wrong", cache: cache).save(Credential(key: CredentialKey(server: "s", account: "b"), secret: Secret("x")))
            }
            #expect(try given("\(dir)/v.db", "pass-1", cache: cache).load(item.key)?.secret == Secret("value"))
            #expect(cache.names == [name], "the wrong passphrase dropped nothing and added nothing")
            let notAsked = CountingPassphrase("none")
            #expect(try store("\(dir)/v.db", notAsked, cache: cache).list(server: nil).count == 1)
            #expect(notAsked.asked == 0, "with no passphrase given, the kept key serves")
        }
    }

    @Test("a key kept by an older vault (no verifier) serves without a passphrase; a given one is derived and the entry gains a verifier")
    func keyWithoutVerifier() throws {
        try withTemporaryDirectory("keycache") { dir in
            let cache = MemoryKeyCache()
            try given("\(dir)/v.db", "pass-1", cache: cache).save(item)
            let name = try #require(cache.names.first)
            let master = try #require(cache.load(name)).prefix(32)
            cache.put(name, Array(master))
            #expect(try store("\(dir)/v.db", CountingPassphrase("none"), cache: cache).load(item.key)?.secret == Secret("value"))
            #expect(throws: VaultError.wrongPassphrase) { try given("\(dir)/v.db", "wrong", cache: cache).load(item.key) }
            #expect(try given("\(dir)/v.db", "pass-1", cache: cache).load(item.key)?.secret == Secret("value"))
            #expect(cache.load(name)?.count == 64)
        }
    }

    @Test("a store that adds no cached keys (vault exec) uses a kept one but leaves none behind")
    func readOnlyPolicy() throws {
        try withTemporaryDirectory("keycache") { dir in
            let cache = MemoryKeyCache()
            try given("\(dir)/v.db", "pass-1", cache: cache, storesNewKeys: false).save(item)
            #expect(cache.names.isEmpty, "creating the file kept no key")
            #expect(try given("\(dir)/v.db", "pass-1", cache: cache, storesNewKeys: false).load(item.key)?.secret == Secret("value"))
            #expect(cache.names.isEmpty, "opening it kept no key")
            try given("\(dir)/v.db", "pass-1", cache: cache).cacheKey()
            #expect(cache.names.count == 1)
            let notAsked = CountingPassphrase("none")
            let readOnly = EncryptedFileStore(
                path: "\(dir)/v.db", passphrase: notAsked.source, kdf: kdf, keyCache: KeyCachePolicy(cache: cache, lifetime: 60).readOnly)
            #expect(try readOnly.load(item.key)?.secret == Secret("value"))
            #expect(notAsked.asked == 0, "a key the user kept serves")
        }
    }

    @Test("CachedVaultKey: payloads of 32 and 64 bytes, nothing else; the verifier admits its passphrase only")
    func cachedVaultKey() {
        let master = [UInt8](repeating: 9, count: 32)
        let entry = CachedVaultKey(master: master, passphrase: Secret("right"))
        #expect(entry.payload.count == 64)
        #expect(entry.admits(Secret("right")))
        #expect(!entry.admits(Secret("wrong")) && !entry.admits(Secret("")) && !entry.admits(Secret("right ")))
        #expect(CachedVaultKey(payload: entry.payload)?.admits(Secret("right")) == true)
        #expect(CachedVaultKey(payload: master)?.admits(Secret("right")) == false, "no verifier admits nothing")
        for size in [0, 31, 33, 63, 65] { #expect(CachedVaultKey(payload: [UInt8](repeating: 1, count: size)) == nil) }
    }

    @Test("vault's key names: the prefix and 32 lower-case hexadecimal digits, nothing else")
    func vaultNames() {
        let digits = String(repeating: "0123456789abcdef", count: 2)
        #expect(KeyCachePolicy.isVaultName("vault:" + digits, prefix: "vault:"))
        #expect(KeyCachePolicy.isVaultName("vault-fleet:" + digits, prefix: "vault-fleet:"))
        for other in [
            "vault:mine-not-vaults", "vault:" + digits + "0", "vault:" + digits.uppercased(), "vault:" + digits.dropLast(), "vaultx:" + digits,
        ] {
            #expect(!KeyCachePolicy.isVaultName(other, prefix: "vault:"), "\(other)")
        }
    }
}

@Suite("Passphrase files", .offThePool)
struct PassphraseFileTests {
    @Test("a passphrase file over 64 KiB is refused whole, never cut: another file with the same start opens nothing")
    func oversizedFileIsRefused() throws {
        try withTemporaryDirectory("passphrase-file") { dir in
            let start = [UInt8](repeating: 0x61, count: PassphraseSource.maximumFileSize)
            for (name, bytes) in [("exact", start), ("longer", start + Array("different tail".utf8)), ("newline", start + [0x0a])] {
                _ = FileManager.default.createFile(atPath: "\(dir)/\(name)", contents: Data(bytes), attributes: [.posixPermissions: 0o600])
            }
            let exact = try PassphraseSource.readPassphraseFile("\(dir)/exact")
            #expect(exact.bytes == start)
            #expect { try PassphraseSource.readPassphraseFile("\(dir)/longer") } throws: { sameCase($0, as: VaultError.invalidInput("")) }
            #expect { try PassphraseSource.readPassphraseFile("\(dir)/newline") } throws: { sameCase($0, as: VaultError.invalidInput("")) }
        }
    }
}
