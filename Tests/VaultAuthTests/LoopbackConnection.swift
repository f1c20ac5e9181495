// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing

@testable import VaultAuth

/// A real TCP connection on loopback, made with plain sockets: a listener on `host`, a
/// client of `clientFamily` connected to it, and the accepted end, whose addresses are what
/// the sign-in listener sees of a connection (``LoopbackPeerOwner``'s input).
final class LoopbackConnection {
    private var descriptors: [Int32] = []
    private let client: Int32
    private let accepted: Int32
    /// The accepted end's view: the client's address and port, the listener's.
    private let peer: sockaddr_storage
    private let local: sockaddr_storage
    let serverPort: Int

    init(family: Int32, host: String, clientFamily: Int32? = nil) throws {
        let listener = socket(family, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        try #require(listener >= 0)
        descriptors.append(listener)
        var (address, length) = Self.address(family: family, host: host, port: 0)
        try #require(withUnsafePointer(to: &address) { bind(listener, UnsafeRawPointer($0).assumingMemoryBound(to: sockaddr.self), length) } == 0)
        try #require(listen(listener, 4) == 0)
        var bound = sockaddr_storage()
        var boundLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            getsockname(listener, UnsafeMutableRawPointer($0).assumingMemoryBound(to: sockaddr.self), &boundLength)
        }
        let port: UInt16 =
            family == AF_INET
            ? withUnsafeBytes(of: bound) { $0.load(as: sockaddr_in.self).sin_port.bigEndian }
            : withUnsafeBytes(of: bound) { $0.load(as: sockaddr_in6.self).sin6_port.bigEndian }
        serverPort = Int(port)

        // The client: the same family, or a dual-stack IPv6 socket reaching 127.0.0.1 as ::ffff:127.0.0.1.
        let clientFamily = clientFamily ?? family
        let client = socket(clientFamily, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        try #require(client >= 0)
        descriptors.append(client)
        var (target, targetLength) =
            clientFamily == family ? (bound, boundLength) : Self.address(family: AF_INET6, host: "::ffff:" + host, port: port)
        // On loopback the handshake is done within connect, and accept finds the connection queued.
        try #require(
            withUnsafePointer(to: &target) { connect(client, UnsafeRawPointer($0).assumingMemoryBound(to: sockaddr.self), targetLength) } == 0)
        let accepted = accept(listener, nil, nil)
        try #require(accepted >= 0)
        descriptors.append(accepted)
        var peer = sockaddr_storage()
        var local = sockaddr_storage()
        var size = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &peer) { getpeername(accepted, UnsafeMutableRawPointer($0).assumingMemoryBound(to: sockaddr.self), &size) }
        size = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &local) { getsockname(accepted, UnsafeMutableRawPointer($0).assumingMemoryBound(to: sockaddr.self), &size) }
        self.peer = peer
        self.local = local
        self.client = client
        self.accepted = accepted
    }

    /// The socket address of `host` (an IPv4 or IPv6 literal of `family`) and `port`, and its length.
    static func address(family: Int32, host: String, port: UInt16) -> (sockaddr_storage, socklen_t) {
        var address = sockaddr_storage()
        if family == AF_INET {
            withUnsafeMutableBytes(of: &address) { raw in
                let v4 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                v4.pointee.sin_family = sa_family_t(AF_INET)
                v4.pointee.sin_port = port.bigEndian
                inet_pton(AF_INET, host, &v4.pointee.sin_addr)
            }
            return (address, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
        withUnsafeMutableBytes(of: &address) { raw in
            let v6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
            v6.pointee.sin6_family = sa_family_t(AF_INET6)
            v6.pointee.sin6_port = port.bigEndian
            inet_pton(AF_INET6, host, &v6.pointee.sin6_addr)
        }
        return (address, socklen_t(MemoryLayout<sockaddr_in6>.size))
    }

    /// What ``LoopbackPeerOwner`` says of the client's socket (with the listener's port
    /// replaced by `serverPort`, to ask for a connection that does not exist).
    func owner(serverPort: Int? = nil) -> UInt32? {
        if peer.ss_family == sa_family_t(AF_INET) {
            let client = withUnsafeBytes(of: peer) { $0.load(as: sockaddr_in.self) }
            let server = withUnsafeBytes(of: local) { $0.load(as: sockaddr_in.self) }
            return LoopbackPeerOwner.uid(
                client: (client.sin_addr.s_addr, Int(client.sin_port.bigEndian)),
                server: (server.sin_addr.s_addr, serverPort ?? Int(server.sin_port.bigEndian))
            ).uid
        }
        let client = withUnsafeBytes(of: peer) { $0.load(as: sockaddr_in6.self) }
        let server = withUnsafeBytes(of: local) { $0.load(as: sockaddr_in6.self) }
        return LoopbackPeerOwner.uid(
            client: (LoopbackPeerOwner.bytes(of: client.sin6_addr), Int(client.sin6_port.bigEndian)),
            server: (LoopbackPeerOwner.bytes(of: server.sin6_addr), serverPort ?? Int(server.sin6_port.bigEndian))
        ).uid
    }

    /// Closes the client's end, then the accepted one: the client's socket leaves ESTABLISHED.
    func closeClientFirst() {
        Foundation.close(client)
        Foundation.close(accepted)
        descriptors.removeAll { $0 == client || $0 == accepted }
    }

    func close() {
        for descriptor in descriptors { Foundation.close(descriptor) }
        descriptors.removeAll()
    }
}
