// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultSync
import VaultTestSupport

/// `Locked`, the lock every module shares state under: one user at a time, a thrown error
/// releases it, and a `withLock` inside `withLock` on the same value traps with a message
/// instead of hanging.
@Suite("Locked: vault's lock", .offThePool)
struct LockedTests {
    private struct Refused: Error {}

    @Test("100 threads adding 1,000 times each lose no update")
    func mutualExclusion() async {
        let counter = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<100 {
                group.addTask { for _ in 0..<1000 { counter.withLock { $0 += 1 } } }
            }
        }
        #expect(counter.withLock { $0 } == 100_000)
    }

    @Test("a thrown error comes out as it is, the change before it stays, the lock is free again")
    func throwingBody() {
        let value = Locked([String]())
        #expect(throws: Refused.self) {
            try value.withLock { (list: inout [String]) throws(Refused) in
                list.append("kept")
                throw Refused()
            }
        }
        #expect(value.withLock { $0 } == ["kept"])
    }

    @Test("withLock inside withLock on the same value traps with a message, never hangs", .timeLimit(.minutes(1)))
    func reentryTraps() async {
        await #expect(processExitsWith: .failure) {
            let value = Locked(0)
            value.withLock { _ in value.withLock { $0 += 1 } }
        }
    }
}
