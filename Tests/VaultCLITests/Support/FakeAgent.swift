// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultAgentProtocol
import VaultSync

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A fake `vault agent` for the clients' tests: a real Unix socket in this test process,
/// answering canned frames from a thread of its own (never the concurrency pool's). It
/// counts connections and keeps the requests it could read.
final class FakeAgent: Sendable {
    /// How the fake answers each connection.
    enum Behaviour: Sendable {
        /// The answer `reply` gives to the request read.
        case answer(@Sendable (AgentRequest) -> AgentAnswer)
        /// Reads the request and never answers (the connection is held until ``stop()``).
        case stall
        /// Answers a frame whose payload is no version-1 answer.
        case garbage
        /// Closes the connection without a word.
        case hangUp
    }

    let path: String
    private let listener: Int32
    private let behaviour: Behaviour
    private let state = Locked(State())
    private let stopped = Locked(false)

    private struct State {
        var connections = 0
        var requests: [AgentRequest] = []
        var held: [Int32] = []
    }

    /// Listens at `path` (which must not exist) and starts answering.
    init(path: String, behaviour: Behaviour) throws {
        self.path = path
        self.behaviour = behaviour
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw FakeAgentError(what: "socket") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            close(listener)
            throw FakeAgentError(what: "bind/listen \(path): \(String(cString: strerror(errno)))")
        }
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// The connections accepted so far.
    var connections: Int { state.withLock { $0.connections } }
    /// The requests read so far, in order.
    var requests: [AgentRequest] { state.withLock { $0.requests } }

    /// Stops listening, closes every held connection and removes the socket file.
    func stop() {
        guard
            !stopped.withLock({
                let was = $0; $0 = true; return was
            })
        else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in state.withLock({ $0.held }) { close(fd) }
        unlink(path)
    }

    private func serve() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                break
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)  // not handed to the children other tests start
            if stopped.withLock({ $0 }) {
                close(client)
                break
            }
            state.withLock { $0.connections += 1 }
            answer(client)
        }
        close(listener)
    }

    private func answer(_ fd: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = readRequest(fd)
        if let request { state.withLock { $0.requests.append(request) } }
        switch behaviour {
        case .answer(let reply):
            if let request { write(fd, AgentFrame.framed(reply(request).encoded())) }
        case .stall:
            state.withLock { $0.held.append(fd) }
            return
        case .garbage:
            write(fd, AgentFrame.framed([9, 0, 0, 0, 0, 1, 0x41]))
        case .hangUp:
            break
        }
        close(fd)
    }

    private func readRequest(_ fd: Int32) -> AgentRequest? {
        guard let header = read(fd, 4), let length = AgentFrame.announcedLength(header), length <= AgentFrame.maximumRequest,
            let payload = read(fd, length)
        else { return nil }
        return AgentRequest.decode(payload)
    }

    private func read(_ fd: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let got = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + offset, count - offset, 0) }
            guard got > 0 else { return nil }
            offset += got
        }
        return bytes
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            offset += sent
        }
    }
}

struct FakeAgentError: Error, CustomStringConvertible {
    let what: String
    var description: String { "fake agent: \(what)" }
}
