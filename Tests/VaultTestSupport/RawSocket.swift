// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// Plain TCP on 127.0.0.1 (or ::1), byte for byte as written: for tests of listeners that must see
/// exactly what a hostile client sends (duplicate headers, odd paths).
public enum RawSocket {
    /// Nothing accepted the connection.
    public struct Refused: Error {}

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func accepts(_ port: Int) -> Bool {
        guard let descriptor = try? connect(port) else { return false }
        close(descriptor)
        return true
    }

    /// Sends `request` to 127.0.0.1:`port` (`[::1]:port` when `ipv6`) and returns the answer:
    /// up to the end of a body whose `Content-Length` it gives (then this side closes first,
    /// as a browser does), else everything until the peer closes (5 s read bound).
    public static func exchange(port: Int, ipv6: Bool = false, _ request: String) throws -> String {
        let descriptor = try ipv6 ? connect6(port) : connect(port)
        defer { close(descriptor) }
        _ = request.withCString { send(descriptor, $0, strlen($0), 0) }
        var reply = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !isComplete(reply) {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            reply += buffer[0..<count]
        }
        return String(decoding: reply, as: UTF8.self)
    }

    /// True when `reply` holds a head with a `Content-Length` and that many bytes of body.
    private static func isComplete(_ reply: [UInt8]) -> Bool {
        let text = String(decoding: reply, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n"),
            let length = text[..<end.lowerBound].split(separator: "\r\n").lazy.compactMap({ line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }).first
        else { return false }
        return text.utf8.count - text[..<end.upperBound].utf8.count >= length
    }

    private static func connect(_ port: Int) throws -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return try connect(family: AF_INET, to: address)
    }

    private static func connect6(_ port: Int) throws -> Int32 {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = in_port_t(UInt16(port).bigEndian)
        address.sin6_addr = in6addr_loopback
        return try connect(family: AF_INET6, to: address)
    }

    /// A TCP socket of `family` connected to `address` (a `sockaddr_in` or `sockaddr_in6`),
    /// with a 5 s read bound; `Refused` when nothing accepts.
    private static func connect<Address>(family: Int32, to address: Address) throws -> Int32 {
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Refused() }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafeBytes(of: address) {
            Glibc.connect(descriptor, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(MemoryLayout<Address>.size))
        }
        guard connected == 0 else {
            close(descriptor)
            throw Refused()
        }
        return descriptor
    }

    /// A TCP socket bound to an ephemeral loopback port, and the port. Not `listening`:
    /// a connection to it is refused (and no one else takes the port meanwhile);
    /// `listening`: connections are accepted by the kernel and never answered. The caller
    /// closes the descriptor.
    public static func boundLoopback(listening: Bool) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, !listening || listen(fd, 64) == 0 else {
            close(fd)
            throw Refused()
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
