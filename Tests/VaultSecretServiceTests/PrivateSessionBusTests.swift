// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

@Suite("PrivateSessionBus", .offThePool)
struct PrivateSessionBusTests {
    @Test("a private bus answers, and nothing owns org.freedesktop.secrets on it")
    func answers() async throws {
        try await withPrivateSessionBus { bus in
            let result = try ChildProcess.run(
                "/usr/bin/gdbus",
                [
                    "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus", "--method",
                    "org.freedesktop.DBus.NameHasOwner", "org.freedesktop.secrets",
                ], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], timeout: 20)
            #expect(result.status == 0 && result.out.contains("(false,)"), "\(result.status) \(result.out) \(result.err)")
        }
    }
}
