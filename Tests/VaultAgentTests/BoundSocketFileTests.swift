// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Logging
import Testing
import VaultAgentProtocol
import VaultTestSupport

@testable import VaultAgent

/// A stopping agent removes its own socket file and never the socket a new agent bound at
/// the same path since (attack review 39: the old agent's late unlink by path left the new
/// one serving with no socket file, `vault agent --check` 4).
@Suite("the agent removes only the socket it bound", .offThePool)
struct BoundSocketFileTests {
    @Test("a new agent's socket at the same path survives the old agent's removal; its own goes")
    func removesOnlyItsOwnSocket() async throws {
        let directory = try TemporaryDirectory.make(prefix: "vault-agent-socket")
        defer { TemporaryDirectory.remove(directory) }
        let path = directory + "/agent.sock"
        let logger = Logger(label: "test")

        try AgentSocketPlace.prepare(path)
        let old = try await AgentSocketServer.bind(.path(path), serving: EchoServing(), logger: logger)
        let oldRunning = Task { await old.run() }
        let oldFile = try #require(BoundSocketFile(path: path))
        old.stop()
        await oldRunning.value

        // The old one stopped listening (SwiftNIO unlinked its file on close, or a new agent
        // would find it stale): a new agent binds at the path. Its socket often gets the
        // old one's inode number: the check must not rest on that alone.
        try AgentSocketPlace.prepare(path)
        let new = try await AgentSocketServer.bind(.path(path), serving: EchoServing(), logger: logger)
        let newRunning = Task { await new.run() }
        defer { new.stop() }
        #expect(oldFile.remove() == false, "the old agent must not remove the new agent's socket")
        let answer = await onOwnThread { AgentClient.ask(.ping, socketPath: path, timeout: .seconds(30)) }
        #expect(answer == .success(AgentSocketServerTests.pong), "\(answer)")

        let newFile = try #require(BoundSocketFile(path: path))
        #expect(newFile.remove(), "its own socket goes")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(BoundSocketFile(path: path) == nil)
        #expect(newFile.remove() == false, "removing twice is harmless")
        new.stop()
        await newRunning.value
    }
}
