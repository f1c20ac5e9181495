// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

/// The `vault-auth-server` binary beside the test bundle, when it has been built (the
/// executable suites of this target share it).
let serverBinary: URL? = {
    var directory = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
    for _ in 0..<3 {
        let candidate = directory.appendingPathComponent("vault-auth-server")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return nil
}()

@Suite("vault-auth-server executable", .enabled(if: serverBinary != nil, "vault-auth-server is not built"), .offThePool)
struct ExecutableTests {
    @Test("prints `listening on http://HOST:PORT` first, serves the API, exits on SIGTERM")
    func runsAndStops() async throws {
        let binary = try #require(serverBinary)
        let server = try ChildProcess(
            binary.path,
            [
                "--port", "0", "--access-ttl", "20", "--refresh-ttl", "60", "--user", "ann:pw:x", "--client", "cli:sec",
                "--test-controls",
            ], stderr: .discarded)
        defer { if server.isRunning { server.kill() } }

        let shown = try await server.waitForOutput(timeout: 30) { $0.contains("\n") }
        let line = String(try #require(shown, "no first line within 30 s").prefix { $0 != "\n" })
        #expect(line.hasPrefix("listening on http://127.0.0.1:"), "\(line)")
        let port = try #require(Int(line.split(separator: ":").last ?? ""))
        #expect(port > 0)

        let client = APIClient(port: port)
        let user = try await client.login("ann", "pw:x").decode(User.self)
        // --access-ttl is honoured (20 s: long enough for a loaded machine to use the token)
        let left = user.accessTokenExpire - nowMillis()
        #expect(left <= 20_100 && left > 10_000, "\(left) ms")
        #expect(try await client.developers(user.accessToken).status == 200)
        #expect(try await client.post("/api/test/fault", body: #"{"mode":"status500"}"#).status == 200)
        #expect(try await client.refresh(user.refreshToken).status == 500)
        let oauth = try await client.oauth([("grant_type", "client_credentials")], basic: ("cli", "sec"))
        #expect(oauth.status == 200)

        server.terminate()
        _ = try await server.finishAsync(timeout: 10)  // records an issue if SIGTERM did not end it
        #expect(!server.isRunning)
    }

    @Test("--refresh-idle-ttl: zero, negative, NaN, infinite or no number is a usage error naming it; a good value adds refresh_expires_in")
    func refreshIdleTTL() async throws {
        let binary = try #require(serverBinary)
        for bad in ["0", "-1", "nan", "inf", "soon"] {
            let server = try ChildProcess(binary.path, ["--refresh-idle-ttl=\(bad)"], stdout: .discarded)
            let result = try await server.finishAsync(timeout: 10)
            // 64 (EX_USAGE), as for every other bad option.
            #expect(result.status == 64, "\(bad): exit \(result.status), \(result.err)")
            let first = result.err.split(separator: "\n").first.map(String.init) ?? ""
            #expect(first.contains("--refresh-idle-ttl"), "\(bad): \(result.err)")
        }

        let server = try ChildProcess(
            binary.path, ["--port", "0", "--refresh-idle-ttl", "30", "--user", "ann:pw", "--client", "cli:sec"], stderr: .discarded)
        defer { if server.isRunning { server.kill() } }
        let shown = try await server.waitForOutput(timeout: 30) { $0.contains("\n") }
        let line = String(try #require(shown, "no first line within 30 s").prefix { $0 != "\n" })
        let port = try #require(Int(line.split(separator: ":").last ?? ""))
        let reply = try await APIClient(port: port).oauth(
            [("grant_type", "password"), ("username", "ann"), ("password", "pw")], basic: ("cli", "sec"))
        #expect(reply.status == 200, "\(reply.text)")
        #expect((28...30).contains(try reply.decode(OAuthTokenResponse.self).refreshExpiresIn ?? -1), "\(reply.text)")
        server.terminate()
        _ = try await server.finishAsync(timeout: 10)
    }

    @Test("rejects malformed --user")
    func badArguments() async throws {
        let binary = try #require(serverBinary)
        let server = try ChildProcess(binary.path, ["--user", "no-colon"], stdout: .discarded, stderr: .discarded)
        let result = try await server.finishAsync(timeout: 10)
        #expect(!server.isRunning)
        #expect(result.status != 0)
    }
}
