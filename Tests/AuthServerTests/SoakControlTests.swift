// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

/// What Scripts/soak relies on: the refresh log (`POST /api/test/refresh_log`) and the
/// server's `--users-file`.
@Suite("Soak controls: refresh log and users file", .offThePool)
struct SoakControlTests {
    private struct Drained: Decodable, Equatable {
        struct Entry: Decodable, Equatable {
            let login: String
            let at: Int64
            let outcome: String
        }

        let entries: [Entry]
        let dropped: Int
    }

    @Test("the refresh log names each rotation's login and a reused token, and empties when read")
    func refreshLog() async throws {
        try await withServer(AuthServerConfiguration(testControls: true)) { _, client in
            let user = try await client.register("kim", "pw").decode(User.self)
            let before = nowMillis()
            #expect(try await client.refresh(user.refreshToken).status == 200)
            #expect(try await client.refresh(user.refreshToken).status == 401)  // spent: a second refresh of it
            #expect(try await client.refresh("not a token").status == 401)  // not ours: not logged
            let drained = try await client.post("/api/test/refresh_log", body: "{}").decode(Drained.self)
            #expect(drained.dropped == 0)
            #expect(drained.entries.map(\.outcome) == ["refreshed", "reused"])
            let after = nowMillis()
            let inTime = drained.entries.allSatisfy { $0.login == "kim" && $0.at >= before - 5 && $0.at <= after + 5 }
            #expect(inTime, "\(drained.entries)")
            let again = try await client.post("/api/test/refresh_log", body: "{}").decode(Drained.self)
            #expect(again == Drained(entries: [], dropped: 0))
        }
    }

    @Test("without test controls there is no refresh log to read")
    func noControls() async throws {
        try await withServer { _, client in
            let reply = try await client.post("/api/test/refresh_log", body: "{}")
            #expect(reply.status == 404)
        }
    }

    @Test("--users-file registers its users; a bad line is a usage error naming its number, not its text")
    func usersFile() async throws {
        let binary = try #require(serverBinary)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("soak-users-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bad = directory.appendingPathComponent("bad")
        try Data("ann:pw\nsecret-without-colon\n".utf8).write(to: bad)
        let refused = try ChildProcess(binary.path, ["--users-file", bad.path], stdout: .discarded)
        let result = try await refused.finishAsync(timeout: 10)
        #expect(result.status == 64, "exit \(result.status), \(result.err)")
        #expect(result.err.contains("line 2") && !result.err.contains("secret-without-colon"), "\(result.err)")

        let good = directory.appendingPathComponent("users")
        try Data("ann:pw:x\n\nbob:other\n".utf8).write(to: good)
        let server = try ChildProcess(binary.path, ["--port", "0", "--users-file", good.path], stderr: .discarded)
        defer { if server.isRunning { server.kill() } }
        let shown = try await server.waitForOutput(timeout: 30) { $0.contains("\n") }
        let line = String(try #require(shown, "no first line within 30 s").prefix { $0 != "\n" })
        let port = try #require(Int(line.split(separator: ":").last ?? ""))
        let client = APIClient(port: port)
        #expect(try await client.login("ann", "pw:x").status == 200)
        #expect(try await client.login("bob", "other").status == 200)
        #expect(try await client.login("bob", "wrong").status == 401)
        server.terminate()
        _ = try await server.finishAsync(timeout: 10)
    }
}
