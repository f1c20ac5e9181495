// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import CLinuxSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Which user owns the client end of a TCP connection on loopback, asked of the kernel by an
/// exact `NETLINK_SOCK_DIAG` lookup of the client's socket (sock_diag(7); unprivileged).
///
/// The socket looked for is the client's: local end = the connection's source address and
/// port, remote end = the listener's, ESTABLISHED and live (a socket in TIME_WAIT, which the
/// kernel shows as root's, is none). An IPv4 lookup finds a dual-stack client socket too.
/// Its uid is the user whose process made the socket. No such socket (the client has closed
/// already), a kernel that cannot be asked (a sandbox without netlink sockets), or the
/// overflow uid (a user of another user namespace, whom the kernel cannot name here, and
/// who would pass for vault itself when vault runs unmapped too): owner unknown, with the
/// reason, which callers refuse.
///
/// (It read `/proc/net/tcp` and `tcp6` before: deprecated by the kernel's documentation in
/// favour of sock_diag, and each read walked every socket of the host.)
enum LoopbackPeerOwner {
    /// The answer of one lookup.
    enum Lookup: Equatable {
        case owner(UInt32)
        /// Owner unknown; `reason` says why when it is not simply that no such socket is live.
        case unknown(reason: String?)

        var uid: UInt32? {
            if case .owner(let uid) = self { uid } else { nil }
        }
    }

    /// `/proc/sys/kernel/overflowuid` (65534 unless changed): the uid the kernel shows for a
    /// user it cannot map into this user namespace.
    static let overflowUID: UInt32 = {
        let descriptor = open("/proc/sys/kernel/overflowuid", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return 65534 }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return 65534 }
        return UInt32(String(decoding: bytes[0..<count], as: UTF8.self).trimmingPrefix(" ").prefix { $0.isNumber }) ?? 65534
    }()

    /// The owner of the client socket `client` (address in network byte order, port) connected
    /// to `server`; nil when none is found.
    static func uid(client: (address: in_addr_t, port: Int), server: (address: in_addr_t, port: Int)) -> Lookup {
        withUnsafeBytes(of: client.address) { local in
            withUnsafeBytes(of: server.address) { remote in
                lookup(AF_INET, local, client.port, remote, server.port)
            }
        }
    }

    /// The owner of the IPv6 client socket `client` (the address's 16 bytes, port) connected
    /// to `server`; nil when none is found.
    static func uid(client: (address: [UInt8], port: Int), server: (address: [UInt8], port: Int)) -> Lookup {
        guard client.address.count == 16, server.address.count == 16 else { return .unknown(reason: nil) }
        return client.address.withUnsafeBytes { local in
            server.address.withUnsafeBytes { remote in
                lookup(AF_INET6, local, client.port, remote, server.port)
            }
        }
    }

    /// The 16 bytes of `address`, in network order.
    static func bytes(of address: in6_addr) -> [UInt8] {
        withUnsafeBytes(of: address) { Array($0) }
    }

    private static func lookup(
        _ family: Int32, _ local: UnsafeRawBufferPointer, _ localPort: Int, _ remote: UnsafeRawBufferPointer, _ remotePort: Int
    ) -> Lookup {
        guard let localPort = UInt16(exactly: localPort), let remotePort = UInt16(exactly: remotePort) else { return .unknown(reason: nil) }
        var owner: UInt32 = 0
        guard vault_tcp_socket_owner(family, local.baseAddress, localPort, remote.baseAddress, remotePort, &owner) == 0 else {
            let error = errno
            if error == ENOENT { return .unknown(reason: nil) }
            return .unknown(reason: "the kernel could not be asked (sock_diag: \(String(cString: strerror(error))))")
        }
        if owner == overflowUID { return .unknown(reason: "its owner is a user of another user namespace (the overflow uid \(owner))") }
        return .owner(owner)
    }
}
