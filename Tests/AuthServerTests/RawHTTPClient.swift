// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A parsed HTTP/1.1 reply.
struct HTTPReply: Sendable {
    var status: Int
    /// Header names lower-cased; repeated headers joined with ", ".
    var headers: [String: String]
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }

    func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(T.self, from: body)
    }
}

enum RawHTTPError: Error, Equatable {
    case socket(String)
    case timeout
    case malformedReply(String)
}

/// A deliberately tiny HTTP/1.1 client over a blocking loopback socket, run on its own
/// thread (never on the cooperative pool), so tests control every byte they send
/// (missing Content-Type, oversized bodies, ...). One request per connection.
enum RawHTTP {
    static func request(
        port: Int,
        method: String,
        path: String,
        headers: [(String, String)] = [],
        body: Data = Data(),
        timeout: Double = Sanitizer.scaled(10.0)
    ) async throws -> HTTPReply {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers {
            head += "\(name): \(value)\r\n"
        }
        if !body.isEmpty || method == "POST" {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        return try await exchange(port: port, bytes: Data(head.utf8) + body, timeout: timeout)
    }

    /// Sends `bytes` as they are and reads the reply until the server closes.
    static func exchange(port: Int, bytes: Data, timeout: Double) async throws -> HTTPReply {
        let raw = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
            let thread = Thread {
                continuation.resume(with: Result { try blockingExchange(port: port, bytes: bytes, timeout: timeout) })
            }
            thread.start()
        }
        return try parse(raw)
    }

    private static func blockingExchange(port: Int, bytes: Data, timeout: Double) throws -> Data {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw RawHTTPError.socket("socket: \(errno)") }
        defer { close(fd) }

        var interval = timeval(tv_sec: Int(timeout), tv_usec: .init((timeout - Double(Int(timeout))) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))

        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw RawHTTPError.socket("connect: \(errno)") }

        // Write everything; the server may answer early and close (oversized bodies),
        // so a failed write just moves on to reading the reply.
        let sendFlags: Int32
        #if canImport(Glibc)
            sendFlags = Int32(MSG_NOSIGNAL)
        #else
            sendFlags = 0
        #endif
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = send(fd, buffer.baseAddress! + offset, buffer.count - offset, sendFlags)
                if written <= 0 { break }
                offset += written
            }
        }

        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count > 0 {
                received.append(contentsOf: chunk[0..<count])
                if let complete = completeLength(received), received.count >= complete { break }
            } else if count == 0 {
                break
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                throw RawHTTPError.timeout
            } else if errno == EINTR {
                continue
            } else {
                if received.isEmpty { throw RawHTTPError.socket("recv: \(errno)") }
                break
            }
        }
        return received
    }

    /// Total length of the reply when the head declares a Content-Length, else `nil`.
    private static func completeLength(_ data: Data) -> Int? {
        guard let separator = data.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: data[..<separator.lowerBound], as: UTF8.self).lowercased()
        for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
            if let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) {
                return separator.upperBound - data.startIndex + length
            }
        }
        return nil
    }

    static func parse(_ data: Data) throws -> HTTPReply {
        guard let separator = data.range(of: Data("\r\n\r\n".utf8)) else {
            throw RawHTTPError.malformedReply(String(decoding: data, as: UTF8.self))
        }
        let head = String(decoding: data[..<separator.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw RawHTTPError.malformedReply(head)
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        var body = Data(data[separator.upperBound...])
        if let length = headers["content-length"].flatMap(Int.init) {
            body = body.prefix(length)
        } else if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = try dechunk(body)
        }
        return HTTPReply(status: status, headers: headers, body: body)
    }

    private static func dechunk(_ data: Data) throws -> Data {
        var output = Data()
        var rest = data[...]
        while let lineEnd = rest.range(of: Data("\r\n".utf8)) {
            let sizeText = String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else {
                throw RawHTTPError.malformedReply("bad chunk size")
            }
            if size == 0 { break }
            let start = lineEnd.upperBound
            guard rest.distance(from: start, to: rest.endIndex) >= size + 2 else {
                throw RawHTTPError.malformedReply("short chunk")
            }
            let end = rest.index(start, offsetBy: size)
            output.append(rest[start..<end])
            rest = rest[rest.index(end, offsetBy: 2)...]
        }
        return output
    }
}
