// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Logging
import Testing
import VaultAgent
import VaultAgentProtocol
import VaultTestSupport

/// The socket server on real Unix sockets, with a serving of the test's own: the peer's
/// uid, the bounds on size, time and connections, and that no client holds up another.
@Suite("the agent's socket server", .offThePool) struct AgentSocketServerTests {
    /// A server on `directory/agent.sock`, served by ``EchoServing``, running until `body` returns.
    static func withServer<T>(
        limits: AgentSocketServer.Limits = .init(), logs: ServerLogHandler.Box = .init(),
        _ body: (_ path: String, _ server: AgentSocketServer) async throws -> T
    ) async throws -> T {
        let directory = try TemporaryDirectory.make(prefix: "vault-agent-server")
        defer { TemporaryDirectory.remove(directory) }
        let path = directory + "/agent.sock"
        let logger = Logger(label: "test") { _ in ServerLogHandler(box: logs) }
        let server = try await AgentSocketServer.bind(.path(path), serving: EchoServing(), limits: limits, logger: logger)
        let running = Task { await server.run() }
        defer { running.cancel() }
        do {
            let result = try await body(path, server)
            server.stop()
            await running.value
            return result
        } catch {
            server.stop()
            await running.value
            throw error
        }
    }

    /// Pings the server at `path` from another thread (the client blocks).
    /// A ping from a thread of its own. The bound is for a hang, not a speed: the server's
    /// tasks share the test process's concurrency pool (two threads on two cores) with
    /// the synchronous tests running beside them, which hold a thread each for seconds (a
    /// fresh clone's store pass once kept a ping after 1,000 idle connections past 10 s).
    static func ping(_ path: String, timeout: Duration = .seconds(30)) async -> Result<AgentAnswer, AgentClientError> {
        await onOwnThread { AgentClient.ask(.ping, socketPath: path, timeout: timeout) }
    }

    static let pong = AgentAnswer.done([Array(EchoServing.versionLine.utf8)])

    @Test("a ping is answered; the socket is born 0600")
    func answersAPing() async throws {
        try await Self.withServer { path, _ async throws in
            #expect(try await Self.ping(path).get() == Self.pong)
            var status = stat()
            #expect(lstat(path, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o600, "mode \(String(status.st_mode & 0o777, radix: 8))")
        }
    }

    @Test("a request announcing more than the bound is closed unanswered while another client is served")
    func oversizedRequestIsClosed() async throws {
        try await Self.withServer { path, _ in
            let descriptor = try SocketTestClient.connect(path)
            defer { close(descriptor) }
            let length = UInt32(AgentFrame.maximumRequest + 1)
            SocketTestClient.send(descriptor, [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)])
            #expect(try await Self.ping(path).get() == Self.pong)
            let reply = await onOwnThread { SocketTestClient.readToEnd(descriptor, timeout: 10) }
            #expect(reply.closed && reply.bytes.isEmpty, "\(reply)")
        }
    }

    @Test("a malformed request is closed unanswered")
    func malformedRequestIsClosed() async throws {
        try await Self.withServer { path, _ in
            let descriptor = try SocketTestClient.connect(path)
            defer { close(descriptor) }
            SocketTestClient.send(descriptor, AgentFrame.framed([1, 99, 0]))
            let reply = await onOwnThread { SocketTestClient.readToEnd(descriptor, timeout: 10) }
            #expect(reply.closed && reply.bytes.isEmpty, "\(reply)")
        }
    }

    @Test("a half-sent request is closed at the deadline; others are served meanwhile")
    func halfSentRequestIsClosedAtTheDeadline() async throws {
        try await Self.withServer(limits: .init(requestDeadline: .seconds(1))) { path, _ in
            let descriptor = try SocketTestClient.connect(path)
            defer { close(descriptor) }
            let frame = AgentFrame.framed(AgentRequest.ping.encoded())
            SocketTestClient.send(descriptor, Array(frame.prefix(5)))
            #expect(try await Self.ping(path).get() == Self.pong)
            let started = ContinuousClock.now
            let reply = await onOwnThread { SocketTestClient.readToEnd(descriptor, timeout: 30) }
            #expect(reply.closed && reply.bytes.isEmpty, "\(reply)")
            #expect(ContinuousClock.now - started < Sanitizer.scaled(.seconds(25)), "closed by the deadline, not by the test's read bound")
        }
    }

    @Test("a whole request sent in pieces is answered")
    func requestInPiecesIsAnswered() async throws {
        try await Self.withServer { path, _ in
            let descriptor = try SocketTestClient.connect(path)
            defer { close(descriptor) }
            let frame = AgentFrame.framed(AgentRequest.status(store: "piece by piece").encoded())
            // On a thread of its own: a busy concurrency pool must not stretch the pauses.
            let reply = await onOwnThread {
                for byte in frame {
                    SocketTestClient.send(descriptor, [byte])
                    usleep(2000)
                }
                return SocketTestClient.readToEnd(descriptor, timeout: 10)
            }
            #expect(reply.closed)
            #expect(AgentAnswer.decode(reply.bytes.dropFirst(4)) == .done([Array("piece by piece".utf8)]))
        }
    }

    @Test("1,000 idle connections: a client is still served")
    func thousandIdleConnections() async throws {
        // A long request deadline: the idle ones stay open however slow the machine is.
        try await Self.withServer(limits: .init(requestDeadline: .seconds(120))) { path, server in
            var idle: [Int32] = []
            defer { for descriptor in idle { close(descriptor) } }
            for _ in 0..<1000 { idle.append(try SocketTestClient.connect(path)) }
            for _ in 0..<3 { #expect(try await Self.ping(path).get() == Self.pong) }
            #expect(server.openConnections >= 900, "\(server.openConnections) open")
        }
    }

    @Test("past the connection bound a new connection is closed at once; served again once some end")
    func connectionBound() async throws {
        try await Self.withServer(limits: .init(maximumConnections: 8, requestDeadline: .seconds(120))) { path, server in
            var idle: [Int32] = []
            defer { for descriptor in idle { close(descriptor) } }
            for _ in 0..<8 { idle.append(try SocketTestClient.connect(path)) }
            // Wait (bounded) until the server has taken all eight.
            for _ in 0..<500 where server.openConnections < 8 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(server.openConnections == 8)
            let extra = try SocketTestClient.connect(path)
            defer { close(extra) }
            SocketTestClient.send(extra, AgentFrame.framed(AgentRequest.ping.encoded()))
            let reply = await onOwnThread { SocketTestClient.readToEnd(extra, timeout: 10) }
            #expect(reply.closed && reply.bytes.isEmpty, "\(reply)")
            for descriptor in idle { close(descriptor) }
            idle = []
            var answer = await Self.ping(path)
            for _ in 0..<100 where (try? answer.get()) != Self.pong {
                try await Task.sleep(for: .milliseconds(20))
                answer = await Self.ping(path)
            }
            #expect(try answer.get() == Self.pong)
        }
    }

    @Test("an answer past the deadline is 'took too long'; a slow answer never delays another client")
    func answerDeadline() async throws {
        try await Self.withServer(limits: .init(answerDeadline: .seconds(1))) { path, _ async throws in
            let slow = Task { await onOwnThread { AgentClient.ask(.status(store: "30000"), socketPath: path, timeout: .seconds(20)) } }
            #expect(try await Self.ping(path).get() == Self.pong)
            #expect(try await slow.value.get() == .declined(reason: AgentSocketServer.tooLongReason))
        }
    }

    @Test("another uid's connection is closed unread, logged once per uid")
    func otherUIDIsRefused() async throws {
        try #require(getuid() == 0, "needs root to run a client as uid 65534")
        let logs = ServerLogHandler.Box()
        try await Self.withServer(logs: logs) { path, _ in
            // The test's own directory: reachable by uid 65534, unlike the agent's.
            chmod(String(path.dropLast("/agent.sock".count)), 0o711)
            chmod(path, 0o666)
            for _ in 0..<2 {
                let result = try await ChildProcess.runAsync(
                    "/usr/bin/setpriv",
                    ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-I", "-c", Self.pythonClient, path],
                    environment: ["PATH": "/usr/bin:/bin"], timeout: 30)
                #expect(result.status == 0, "\(result.err)")
                #expect(result.out == "connected, answered 0 bytes\n", "\(result.out) \(result.err)")
            }
            #expect(try await Self.ping(path).get() == Self.pong)
            let refusals = logs.all.filter { $0.contains("uid 65534") }
            #expect(refusals.count == 1, "\(logs.all)")
        }
    }

    /// A ping sent by Python (as another uid): prints how many bytes came back before the close.
    static let pythonClient = """
        import socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(sys.argv[1])
        try:
            s.sendall(bytes([0, 0, 0, 2, 1, 1]))
        except OSError:
            pass
        data = b""
        try:
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
        except ConnectionResetError:
            pass
        print("connected, answered %d bytes" % len(data))
        """

    @Test("stop: no new connection is accepted, an answer under way is still written")
    func stopLetsAnswersFinish() async throws {
        try await Self.withServer { path, server in
            let slow = Task { await onOwnThread { AgentClient.ask(.status(store: "1000"), socketPath: path, timeout: .seconds(20)) } }
            // Once accepted (a connection still in the backlog is refused by the stop).
            for _ in 0..<1000 where server.openConnections < 1 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(server.openConnections == 1)
            server.stop()
            #expect(try await slow.value.get() == .done([Array("1000".utf8)]))
            var refused = false
            for _ in 0..<100 {
                if case .failure = await Self.ping(path, timeout: .seconds(2)) {
                    refused = true
                    break
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(refused)
        }
    }

    @Test("stop with an idle client: the straggler is closed at the drain bound and run() returns")
    func stopClosesStragglers() async throws {
        let directory = try TemporaryDirectory.make(prefix: "vault-agent-server")
        defer { TemporaryDirectory.remove(directory) }
        let path = directory + "/agent.sock"
        let server = try await AgentSocketServer.bind(
            .path(path), serving: EchoServing(), limits: .init(requestDeadline: .seconds(60), drainDeadline: .seconds(1)),
            logger: Logger(label: "test"))
        let running = Task { await server.run() }
        let idle = try SocketTestClient.connect(path)
        defer { close(idle) }
        for _ in 0..<500 where server.openConnections < 1 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(server.openConnections == 1)
        server.stop()
        let reply = await onOwnThread { SocketTestClient.readToEnd(idle, timeout: 30) }
        #expect(reply.closed && reply.bytes.isEmpty, "\(reply)")
        await running.value
        #expect(server.openConnections == 0)
    }
}
