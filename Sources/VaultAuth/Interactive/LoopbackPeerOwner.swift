// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Which user owns the client end of a TCP connection on loopback, read from the kernel's
/// socket tables (`/proc/net/tcp`, and `/proc/net/tcp6` for a dual-stack client socket,
/// whose IPv4 addresses show there mapped, `::ffff:a.b.c.d`).
///
/// The entry looked for is the client's socket: local address = the connection's source
/// address and port, remote address = the listener's, state ESTABLISHED, with an inode (a
/// live socket, not one in TIME_WAIT, which the kernel shows as owned by uid 0). Its `uid`
/// column is the user whose process made the socket. No such entry (the client has
/// closed or half-closed already, or the tables cannot be read): nil, owner unknown.
enum LoopbackPeerOwner {
    /// The kernel's tables, IPv4 first.
    static let tablePaths = ["/proc/net/tcp", "/proc/net/tcp6"]

    /// The owner of the client socket `client` (address in network byte order, port) connected
    /// to `server`, from the tables at ``tablePaths``; nil when none is found.
    static func uid(client: (address: in_addr_t, port: Int), server: (address: in_addr_t, port: Int)) -> UInt32? {
        uid(client: client, server: server, tables: tablePaths.compactMap(read))
    }

    /// The owner of the IPv6 client socket `client` (the address's 16 bytes, port) connected
    /// to `server` (a listener on `::1`), from the tables at ``tablePaths``; nil when none is found.
    static func uid(client: (address: [UInt8], port: Int), server: (address: [UInt8], port: Int)) -> UInt32? {
        uid(client: client, server: server, tables: tablePaths.compactMap(read))
    }

    /// The owner of an IPv6 client socket as `tables` show it (the IPv4 lookup above, for `::1`).
    static func uid(client: (address: [UInt8], port: Int), server: (address: [UInt8], port: Int), tables: [String]) -> UInt32? {
        guard let clientForm = form(client.address), let serverForm = form(server.address) else { return nil }
        return uid(local: ["\(clientForm):\(hex(client.port, digits: 4))"], remote: ["\(serverForm):\(hex(server.port, digits: 4))"], tables: tables)
    }

    /// The 16 bytes of `address`, in network order.
    static func bytes(of address: in6_addr) -> [UInt8] {
        withUnsafeBytes(of: address) { Array($0) }
    }

    /// How `tcp6` prints an IPv6 address of 16 bytes: each 32-bit word as the host stores it, in hex.
    private static func form(_ address: [UInt8]) -> String? {
        guard address.count == 16 else { return nil }
        return stride(from: 0, to: 16, by: 4).map { start in
            let word = address[start..<start + 4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            return hex(Int(word), digits: 8)
        }.joined()
    }

    /// The whole of a `/proc` file, read until its end. (Foundation's readers trust the size
    /// `stat` gives, 0 for these files, and stop after the first page of a longer table.)
    static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return String(decoding: text, as: UTF8.self) }
            text += buffer[0..<count]
        }
    }

    /// The owner of the client socket `client` connected to `server` as `tables` (the text of
    /// `/proc/net/tcp` and `/proc/net/tcp6`) show it; nil when none is found.
    static func uid(client: (address: in_addr_t, port: Int), server: (address: in_addr_t, port: Int), tables: [String]) -> UInt32? {
        let local = Set(forms(client.address).map { "\($0):\(hex(client.port, digits: 4))" })
        let remote = Set(forms(server.address).map { "\($0):\(hex(server.port, digits: 4))" })
        return uid(local: local, remote: remote, tables: tables)
    }

    /// The uid of the live, established entry of `tables` from one of `local` to one of
    /// `remote` (addresses as the tables print them, with `:PORT`); nil when none is found.
    private static func uid(local: Set<String>, remote: Set<String>, tables: [String]) -> UInt32? {
        for table in tables {
            for line in table.split(separator: "\n") {
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9, local.contains(fields[1].uppercased()), remote.contains(fields[2].uppercased()),
                    fields[3] == establishedState, fields[9] != "0"
                else { continue }
                return UInt32(fields[7])
            }
        }
        return nil
    }

    /// `TCP_ESTABLISHED` as the tables print it.
    private static let establishedState = "01"

    /// How the tables print an IPv4 address (each 32-bit word as the host stores it, in hex):
    /// as itself in `tcp`, and mapped into IPv6 in `tcp6`.
    private static func forms(_ address: in_addr_t) -> [String] {
        let mappedPrefix = [UInt32(0), 0, UInt32(bigEndian: 0x0000_FFFF)].map { hex(Int($0), digits: 8) }.joined()
        return [hex(Int(address), digits: 8), mappedPrefix + hex(Int(address), digits: 8)]
    }

    private static func hex(_ value: Int, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
