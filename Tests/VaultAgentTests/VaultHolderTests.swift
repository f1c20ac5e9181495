// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Logging
import Testing
import VaultStore
import VaultSync
import VaultTestSupport

@testable import VaultAgent

/// `VaultHolder`: reopening a locked vault from the key cache, one attempt at a time.
@Suite("VaultHolder: reopening after a lock", .offThePool)
struct VaultHolderTests {
    @Test("a caller that joined an attempt begun before the unlock, which failed, tries once more itself")
    func aJoinedFailedAttemptIsTriedAgain() async throws {
        let calls = Locked(0)
        let gate = DispatchSemaphore(value: 0)
        let holder = VaultHolder(
            openStore: { _ throws(VaultError) -> any SecureStore in
                let call = calls.withLock {
                    $0 += 1; return $0
                }
                if call == 1 {
                    // The attempt begun while the vault was locked: it read the empty key cache.
                    gate.wait()
                    throw .locked("locked (test)")
                }
                return InMemoryStore()
            }, logger: Logger(label: "test"))
        #expect(holder.isLocked)
        let first = Task { await holder.availableStore() != nil }
        // Bounded: the first attempt starts on a task of its own.
        for _ in 0..<500 where calls.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(calls.withLock { $0 } == 1)
        // `vault unlock` now; a token request arrives and joins the attempt under way.
        let second = Task { await holder.availableStore() != nil }
        try await Task.sleep(for: .milliseconds(300))
        gate.signal()
        #expect(await second.value, "declined as locked right after the unlock")
        _ = await first.value
        #expect(calls.withLock { $0 } == 2)
        #expect(!holder.isLocked)
    }
}
