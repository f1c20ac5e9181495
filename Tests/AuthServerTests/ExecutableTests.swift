import AuthServer
import Foundation
import Testing

/// The `vault-auth-server` binary beside the test bundle, when it has been built.
private let serverBinary: URL? = {
    var directory = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
    for _ in 0..<3 {
        let candidate = directory.appendingPathComponent("vault-auth-server")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return nil
}()

@Suite("vault-auth-server executable", .enabled(if: serverBinary != nil, "vault-auth-server is not built"))
struct ExecutableTests {
    /// Reads one line from `handle` on a thread, bounded by `timeout`.
    private func firstLine(of handle: FileHandle, timeout: Duration) async throws -> String {
        try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask {
                try await withCheckedThrowingContinuation { continuation in
                    Thread {
                        var bytes = Data()
                        while true {
                            let byte = handle.readData(ofLength: 1)
                            if byte.isEmpty || byte == Data("\n".utf8) { break }
                            bytes.append(byte)
                        }
                        continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
                    }.start()
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw RawHTTPError.timeout
            }
            let line = try await group.next() ?? ""
            group.cancelAll()
            return line
        }
    }

    @Test("prints `listening on http://HOST:PORT` first, serves the API, exits on SIGTERM")
    func runsAndStops() async throws {
        let binary = try #require(serverBinary)
        let process = Process()
        process.executableURL = binary
        process.arguments = [
            "--port", "0", "--access-ttl", "20", "--refresh-ttl", "60", "--user", "ann:pw:x", "--client", "cli:sec",
            "--test-controls",
        ]
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        let line = try await firstLine(of: stdout.fileHandleForReading, timeout: .seconds(30))
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

        process.terminate()
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(!process.isRunning)
    }

    @Test("rejects malformed --user")
    func badArguments() async throws {
        let binary = try #require(serverBinary)
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--user", "no-colon"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(!process.isRunning)
        if process.isRunning { process.terminate() } else { #expect(process.terminationStatus != 0) }
    }
}
