// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Logging
import Testing
import VaultAgent
import VaultAgentProtocol
import VaultTestSupport

/// A stopping agent removes its own socket file and never a socket another agent bound at
/// the same path since: attack review 39 (the old agent's late unlink by path left the new
/// one serving with no socket file, `vault agent --check` 4) and 40 (SwiftNIO's own unlink
/// at close, by path, removed whatever socket was there).
@Suite("the agent removes only the socket it bound", .offThePool)
struct BoundSocketFileTests {
    static func ping(_ path: String) async -> Result<AgentAnswer, AgentClientError> {
        await onOwnThread { AgentClient.ask(.ping, socketPath: path, timeout: .seconds(30)) }
    }

    /// A socket path in a private temporary directory, and a logger, for `body`.
    static func withSocketPath(_ body: (_ path: String, _ logger: Logger) async throws -> Void) async throws {
        let directory = try TemporaryDirectory.make(prefix: "vault-agent-socket")
        defer { TemporaryDirectory.remove(directory) }
        try await body(directory + "/agent.sock", Logger(label: "test"))
    }

    @Test("a new agent replaces the stopped one's stale socket; the old one's removal leaves it; its own goes")
    func replacedAfterTheStop() async throws {
        try await Self.withSocketPath { path, logger in
            try AgentSocketPlace.prepare(path)
            let old = try await AgentSocketServer.bind(.path(path), serving: EchoServing(), logger: logger)
            let oldRunning = Task { await old.run() }
            let oldFile = try #require(old.boundFile)
            #expect(oldFile == BoundSocketFile(path: path))
            old.stop()
            await old.listenerClosed()
            await oldRunning.value
            #expect(BoundSocketFile(path: path) == oldFile, "closing the listener leaves the file to its owner")

            // The old one stopped listening: a new agent finds its socket stale and replaces
            // it. The new socket often gets the old one's inode number: the check must not
            // rest on that alone.
            try AgentSocketPlace.prepare(path)
            let new = try await AgentSocketServer.bind(.path(path), serving: EchoServing(), logger: logger)
            let newRunning = Task { await new.run() }
            defer { new.stop() }
            #expect(oldFile.remove() == false, "the old agent must not remove the new agent's socket")
            #expect(await Self.ping(path) == .success(AgentSocketServerTests.pong))

            let newFile = try #require(new.boundFile)
            new.stop()
            await new.listenerClosed()
            await newRunning.value
            #expect(newFile.remove(), "its own socket goes")
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(newFile.remove() == false, "removing twice is harmless")
        }
    }

    @Test("a socket put at the path while the agent runs survives the agent's stop and still answers")
    func replacedWhileServing() async throws {
        try await Self.withSocketPath { path, logger in
            let first = try await AgentSocketServer.bind(.path(path), serving: EchoServing(), logger: logger)
            let firstRunning = Task { await first.run() }
            // Another process's socket takes the path (as a socket-activated agent's would).
            unlink(path)
            let other = try await AgentSocketServer.bind(.path(path), serving: EchoServing(), logger: logger)
            let otherRunning = Task { await other.run() }
            defer { other.stop() }

            first.stop()
            await first.listenerClosed()
            await firstRunning.value
            #expect(first.boundFile?.remove() == false)
            #expect(BoundSocketFile(path: path) == other.boundFile, "the other socket's file is still there")
            #expect(await Self.ping(path) == .success(AgentSocketServerTests.pong))

            other.stop()
            await otherRunning.value
            #expect(other.boundFile?.remove() == true)
        }
    }
}
