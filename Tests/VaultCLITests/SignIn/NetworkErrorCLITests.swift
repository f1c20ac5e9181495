// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Network failures, as a person meets them: a refused connection fails at once with
/// the host and port and a question, an unknown host says it cannot be resolved, and no
/// library's type name reaches the user.
@Suite(.offThePool) struct NetworkErrorCLITests {
    /// Type names of the networking libraries that must never be shown.
    static let libraryNames = ["NIOConnectionError", "SocketAddressError", "HTTPClientError", "IOError", "ChannelError", "errno"]

    /// A loopback port nobody listens on: bound (so no one else takes it meanwhile) but
    /// never listening, so a connection to it is refused.
    static func closedPort() throws -> (fd: Int32, port: Int) { try RawSocket.boundLoopback(listening: false) }

    func expectPlainOneLine(_ result: ProcessResult, status: Int32, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == status, "exit \(result.status): \(result.err)", sourceLocation: sourceLocation)
        #expect(result.err.hasPrefix("vault: ") && result.err.split(separator: "\n").count == 1, "\(result.err)", sourceLocation: sourceLocation)
        for name in Self.libraryNames {
            #expect(!result.err.contains(name), "a library's words reached the user: \(result.err)", sourceLocation: sourceLocation)
        }
    }

    @Test("login to a closed port: exit 5 at once, naming host:port and asking whether the server runs")
    func refusedConnectionFailsFast() async throws {
        try await withTemporaryDirectory("vault-refused") { dir in
            let (fd, port) = try Self.closedPort()
            defer { close(fd) }
            let environment = VaultProcess.fileBackendEnvironment(home: dir, file: "\(dir)/vault.db", passphrase: "refused test passphrase")
            // It used to retry in silence until the connect timeout (10 s): the process's
            // bound, ten times what a refused login takes here, ends such a wait (an issue).
            let refused = try await VaultProcess.vaultAsync(
                ["login", "--server", "http://127.0.0.1:\(port)", "--account", "alice"], environment: environment,
                stdin: Data("pw".utf8), timeout: 8)
            expectPlainOneLine(refused, status: 5)
            #expect(refused.err.contains("cannot connect to 127.0.0.1:\(port)"), "\(refused.err)")
            #expect(refused.err.contains("connection refused") && refused.err.contains("is the server running?"), "\(refused.err)")
        }
    }

    @Test("a host that does not resolve: exit 5, 'cannot resolve host', no library type name")
    func unknownHost() async throws {
        try await withTemporaryDirectory("vault-unknown-host") { dir in
            let environment = VaultProcess.fileBackendEnvironment(home: dir, file: "\(dir)/vault.db", passphrase: "unknown host passphrase")
            let result = try await VaultProcess.vaultAsync(
                ["login", "--server", "https://nosuch.invalid", "--account", "alice"], environment: environment,
                stdin: Data("pw".utf8), timeout: 30)
            expectPlainOneLine(result, status: 5)
            #expect(result.err.contains("cannot resolve host nosuch.invalid"), "\(result.err)")
        }
    }

    @Test("a server that stalls: on a terminal vault says what it waits for; into a pipe it says nothing")
    func waitNoticeOnlyOnATerminal() async throws {
        let (fd, port) = try Self.closedPort()
        defer { close(fd) }
        // Listening, never accepting: the connection is made and the request never answered.
        #expect(listen(fd, 8) == 0)
        try await withTemporaryDirectory("vault-wait-notice") { dir in
            var environment = VaultProcess.fileBackendEnvironment(home: dir, file: "\(dir)/vault.db", passphrase: "wait notice passphrase")
            environment["TERM"] = "dumb"
            let arguments = ["login", "--server", "http://127.0.0.1:\(port)", "--account", "alice", "--timeout", "4"]

            let piped = try await VaultProcess.vaultAsync(arguments, environment: environment, stdin: Data("pw".utf8), timeout: 30)
            #expect(piped.status == 5, "\(piped.err)")
            #expect(!piped.err.contains("waiting for"), "a notice into a pipe: \(piped.err)")
            #expect(piped.err.split(separator: "\n").count == 1, "\(piped.err)")

            // stderr on a pty; the password from a file on stdin, so no prompt is shown.
            let passwordFile = "\(dir)/pw"
            try Data("pw".utf8).write(to: URL(fileURLWithPath: passwordFile))
            let command = ([VaultProcess.vaultPath] + arguments).map { "'\($0)'" }.joined(separator: " ") + " < '\(passwordFile)'"
            let child = try ChildProcess(
                "script", ["-qec", command, "/dev/null"], environment: environment, keepingStdinOpen: true, stderr: .intoStdout)
            let result = try await child.finishAsync(timeout: 30)
            #expect(result.status == 5, "\(child.output)")
            #expect(child.output.contains("vault: waiting for 127.0.0.1…"), "\(child.output)")
            #expect(child.output.components(separatedBy: "waiting for").count == 2, "said once: \(child.output)")
        }
    }
}
