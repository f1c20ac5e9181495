// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Logging
import VaultAgent
import VaultAgentProtocol
import VaultSync

/// A raw Unix-socket client for tests: connects, sends exactly the bytes given, and reads
/// what the server answers until it closes.
enum SocketTestClient {
    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// A connected descriptor to `path` (5 s receive timeout).
    static func connect(_ path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failed(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Failed(description: "connect: \(reason)")
        }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }

    static func send(_ descriptor: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// What the peer sends until it closes: the bytes, and whether it closed (false: the
    /// read timed out after `timeout` seconds with the connection still open).
    static func readToEnd(_ descriptor: Int32, timeout: Int = 5) -> (bytes: [UInt8], closed: Bool) {
        var value = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 {
                bytes += buffer[0..<count]
            } else if count == 0 {
                return (bytes, true)
            } else if errno == EINTR {
                continue
            } else if errno == ECONNRESET {
                return (bytes, true)
            } else {
                return (bytes, false)
            }
        }
    }
}

/// A small ``AgentServing`` of the tests' own: `ping` answers "test-agent", `status(store:)`
/// echoes the store after sleeping as many milliseconds as the store's name says when it
/// is a number, anything else is declined.
struct EchoServing: AgentServing {
    static let versionLine = "test-agent"

    func answer(_ request: AgentRequest) async -> AgentAnswer {
        switch request {
        case .ping: return .done([Array(Self.versionLine.utf8)])
        case .status(let store):
            if let milliseconds = Int(store) { try? await Task.sleep(for: .milliseconds(milliseconds)) }
            return .done([Array(store.utf8)])
        default: return .declined(reason: "not served by the test")
        }
    }
}

/// A log handler that keeps the messages, for tests that count what the server logs.
struct ServerLogHandler: LogHandler {
    final class Box: Sendable {
        let lines = Locked<[String]>([])
        var all: [String] { lines.withLock { $0 } }
    }

    let box: Box
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        box.lines.withLock { $0.append(event.message.description) }
    }
}

// A blocking client runs through VaultTestSupport's `onOwnThread`: on a thread of its
// own, never on the concurrency pool, whose few threads the server in this process needs.
