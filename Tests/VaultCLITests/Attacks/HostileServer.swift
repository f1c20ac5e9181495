// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A deliberately misbehaving HTTP/1.1 server on 127.0.0.1 (ephemeral port) for attack
/// tests: it records every request head and body it receives, and answers with whatever
/// `respond` says, down to the byte: redirects, stalls, endless or huge bodies, garbage.
/// Each connection is served on a thread of its own and closed after one exchange.
final class HostileServer: @unchecked Sendable {
    /// What one connection received.
    struct Received: Sendable {
        var method: String
        var target: String
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// How to answer.
    enum Reply: Sendable {
        /// These bytes, then close.
        case raw([UInt8])
        /// These bytes, then nothing for `seconds`, then close.
        case stall([UInt8], seconds: Double)
        /// Waits `seconds`, then sends the bytes.
        case delayed([UInt8], seconds: Double)
        /// These bytes, then `chunk` again and again (bounded: at most `limit` bytes).
        case endless(head: [UInt8], chunk: [UInt8], limit: Int)
    }

    let port: Int
    private let listener: Int32
    private let respond: @Sendable (Received) -> Reply
    private let lock = NSLock()
    private var log: [Received] = []
    private var stopped = false

    init(_ respond: @escaping @Sendable (Received) -> Reply) throws {
        self.respond = respond
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Every request received so far.
    var received: [Received] {
        lock.lock()
        defer { lock.unlock() }
        return log
    }

    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    private func acceptLoop() {
        while !isStopped {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)  // not handed to the children other tests start
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let request = readRequest(fd) else { return }
        lock.lock()
        log.append(request)
        lock.unlock()
        switch respond(request) {
        case .raw(let bytes):
            writeAll(fd, bytes)
        case .stall(let bytes, let seconds):
            writeAll(fd, bytes)
            let end = Date().addingTimeInterval(seconds)
            while Date() < end, !isStopped { usleep(20_000) }
        case .delayed(let bytes, let seconds):
            let start = Date().addingTimeInterval(seconds)
            while Date() < start, !isStopped { usleep(20_000) }
            writeAll(fd, bytes)
        case .endless(let head, let chunk, let limit):
            guard writeAll(fd, head) else { return }
            var sent = 0
            while sent < limit, !isStopped, writeAll(fd, chunk) { sent += chunk.count }
        }
    }

    /// Reads one request head and its Content-Length body (at most 64 MiB).
    private func readRequest(_ fd: Int32) -> Received? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return nil }
            data.append(contentsOf: buffer[0..<n])
            if data.count >= 4 {
                for index in max(0, data.count - n - 3)...(data.count - 4) where Array(data[index..<index + 4]) == separator {
                    headEnd = index
                    break
                }
            }
            if data.count > 1 << 20 { return nil }
        }
        let head = String(decoding: data[0..<headEnd!], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = Array(data[(headEnd! + 4)...])
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        while body.count < min(length, 64 << 20) {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            body.append(contentsOf: buffer[0..<n])
        }
        return Received(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body)
    }

    @discardableResult
    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    // MARK: - Replies

    /// A complete response with a Content-Length.
    static func response(
        _ status: Int, _ body: String = "", headers: [(String, String)] = [("Content-Type", "application/json")]
    ) -> Reply {
        .raw(head(status, headers: headers + [("Content-Length", String(body.utf8.count))]) + Array(body.utf8))
    }

    /// A redirect to `location`.
    static func redirect(_ status: Int, to location: String) -> Reply {
        response(status, "", headers: [("Location", location)])
    }

    /// The status line and headers, ending with the blank line.
    static func head(_ status: Int, headers: [(String, String)]) -> [UInt8] {
        var text = "HTTP/1.1 \(status) Status\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    /// A reference-API login/refresh answer with tokens valid for `lifetime` seconds.
    static func tokens(lifetime: Double = 600, access: String = "hostile-access-token", date: String? = nil) -> Reply {
        let now = Date().timeIntervalSince1970 * 1000
        let body = """
            {"id":1,"accessToken":"\(access)","accessTokenExpire":\(Int64(now + lifetime * 1000)),\
            "refreshToken":"hostile-refresh-token","refreshTokenExpire":\(Int64(now + lifetime * 10_000))}
            """
        return response(200, body, headers: [("Content-Type", "application/json")] + (date.map { [("Date", $0)] } ?? []))
    }
}
