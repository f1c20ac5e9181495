// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultSync
import VaultTestSupport

@testable import VaultStore

/// Where the user's locks live, decided from the directories themselves, and what a keyring
/// write says when it goes ahead without its item lock (attack reviews 39 and 40).
@Suite(.offThePool) struct LockDirectoryTests {
    @Test("the account's private home, else HOME's; a home others can write to, by any name, is none")
    func perUserDirectory() throws {
        try withTemporaryDirectory("vault-lockdir") { dir in
            let uid = getuid()
            let own = dir + "/own", open = dir + "/open", link = dir + "/link"
            try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: own)
            let fallback = "/tmp/vault-locks-\(uid)"
            func directory(_ account: String?, _ home: String?) -> String {
                RefreshLock.perUserDirectory(accountHome: account, environment: home.map { ["HOME": $0] } ?? [:], uid: uid)
            }
            #expect(directory(own, open) == own + "/.cache/vault/locks", "the account's home first")
            #expect(directory(nil, own) == own + "/.cache/vault/locks", "HOME when the account has none")
            #expect(directory(open, own) == own + "/.cache/vault/locks", "an account home others can write to is none")
            #expect(directory(own + "//", nil) == own + "/.cache/vault/locks", "trailing slashes do not count")
            #expect(directory(link, nil) == link + "/.cache/vault/locks", "a link to a private home is one")
            for home in [open, "/tmp", "/tmp//", "/tmp/.", "/var/tmp", "/dev/shm", "/", "relative", "", dir + "/missing"] {
                #expect(directory(nil, home) == fallback, "HOME=\(home)")
            }
            #expect(directory("/", nil) == fallback)
            #expect(
                RefreshLock.perUserDirectory(accountHome: own, environment: [:], uid: uid &+ 4242) == "/tmp/vault-locks-\(uid &+ 4242)",
                "another user's directory is no home")
        }
    }

    @Test("a write whose item lock another process holds waits, then goes ahead and says so once")
    func heldItemLockIsNoticed() throws {
        let key = CredentialKey(server: "s7.example", account: "alice-7")
        try withTemporaryDirectory("vault-itemlock") { dir in
            let holder = try FileLock(path: ItemWriteLock.path(for: key, in: dir), timeout: .seconds(1))
            defer { holder.release() }
            let notices = Locked<[String]>([])
            let wrote = try ItemWriteLock.holding(
                key, in: dir, .saving, notice: { message in notices.withLock { $0.append(message) } }, waitingAtMost: .milliseconds(200)
            ) { () throws(VaultError) in true }
            #expect(wrote)
            let said = notices.withLock { $0 }
            #expect(said.count == 1 && said[0].contains("held the keyring item's write lock"), "\(said)")
            #expect(said.first?.contains("saving without it (a duplicate item may be left") == true, "\(said)")
            #expect(!said[0].contains("s7.example") && !said[0].contains("alice-7"), "no account in the notice: \(said)")
        }
        try withTemporaryDirectory("vault-itemlock") { dir in
            let notices = Locked<[String]>([])
            _ = try ItemWriteLock.holding(key, in: dir, .removing, notice: { message in notices.withLock { $0.append(message) } }) {
                () throws(VaultError) in true
            }
            #expect(notices.withLock { $0 }.isEmpty, "a free lock says nothing")
        }
    }

    @Test("a lock directory others can write to is refused: the write goes ahead and says so")
    func refusedLockDirectoryIsNoticed() throws {
        try withTemporaryDirectory("vault-itemlock") { dir in
            let open = dir + "/open"
            try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
            let notices = Locked<[String]>([])
            let removed = try ItemWriteLock.holding(
                CredentialKey(server: "s7.example", account: "alice-7"), in: open, .removing,
                notice: { message in notices.withLock { $0.append(message) } }
            ) { () throws(VaultError) in true }
            #expect(removed)
            let said = notices.withLock { $0 }
            #expect(said.count == 1 && said[0].contains("cannot be used") && said[0].hasSuffix("removing without it"), "\(said)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: open).isEmpty, "nothing made in a refused directory")
        }
    }
}
