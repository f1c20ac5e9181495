// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultSync
import VaultTestSupport

@testable import VaultStore

/// Where the user's locks live when the account has no usable home, and what a keyring
/// write says when another vault writer held its item lock for the whole wait (attack
/// review 39).
@Suite(.offThePool) struct LockDirectoryTests {
    @Test("the account's writable home, else HOME; never /tmp/.cache, which another user could make first")
    func perUserDirectory() {
        let uid: uid_t = 4242
        #expect(RefreshLock.perUserDirectory(accountHome: "/home/a", environment: ["HOME": "/srv"], uid: uid) == "/home/a/.cache/vault/locks")
        #expect(RefreshLock.perUserDirectory(accountHome: nil, environment: ["HOME": "/srv/b"], uid: uid) == "/srv/b/.cache/vault/locks")
        for environment in [[:], ["HOME": "/tmp"], ["HOME": "/tmp/"], ["HOME": "/"], ["HOME": "relative"], ["HOME": ""]] {
            #expect(RefreshLock.perUserDirectory(accountHome: nil, environment: environment, uid: uid) == "/tmp/vault-locks-4242", "\(environment)")
        }
        #expect(RefreshLock.perUserDirectory(accountHome: "/", environment: [:], uid: uid) == "/tmp/vault-locks-4242")
    }

    @Test("a write whose item lock another writer holds waits, then goes ahead and says so once")
    func heldItemLockIsNoticed() throws {
        try withTemporaryDirectory("vault-itemlock") { dir in
            let key = CredentialKey(server: "s7.example", account: "alice-7")
            let holder = try FileLock(path: ItemWriteLock.path(for: key, in: dir), timeout: .seconds(1))
            defer { holder.release() }
            let notices = Locked<[String]>([])
            let wrote = try ItemWriteLock.holding(
                key, in: dir, notice: { message in notices.withLock { $0.append(message) } }, waitingAtMost: .milliseconds(200)
            ) { () throws(VaultError) in true }
            #expect(wrote)
            let said = notices.withLock { $0 }
            #expect(said.count == 1 && said[0].contains("writing without it"), "\(said)")
            #expect(!said[0].contains("s7.example") && !said[0].contains("alice-7"), "no account in the notice: \(said)")
        }
        try withTemporaryDirectory("vault-itemlock") { dir in
            let notices = Locked<[String]>([])
            _ = try ItemWriteLock.holding(
                CredentialKey(server: "s7.example", account: "alice-7"), in: dir, notice: { message in notices.withLock { $0.append(message) } }
            ) { () throws(VaultError) in true }
            #expect(notices.withLock { $0 }.isEmpty, "a free lock says nothing")
        }
    }
}
