// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultSecretService
import VaultTestSupport

@Suite("Transfer sessions: plain", .offThePool)
struct PlainSessionTests {
    @Test("plain carries the secret as it is, and an unknown algorithm is refused")
    func plain() throws {
        let (session, output) = try TransferSessions.open(algorithm: "plain", input: [])
        #expect(output == nil)
        let sent = try session.encrypt([1, 2, 3])
        #expect(sent.parameters.isEmpty && sent.value == [1, 2, 3])
        #expect(try session.decrypt(parameters: [], value: [9]) == [9])
        #expect(throws: TransferSessionError.self) { try TransferSessions.open(algorithm: "rot13", input: []) }
    }
}
