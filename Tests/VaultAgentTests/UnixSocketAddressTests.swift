// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultAgentProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// The one place that fills `sun_path` (the client's connect, the agent's bind, sd_notify's
/// sendto): what fits, what does not, and the lengths the kernel is given.
@Suite("Unix socket addresses", .offThePool)
struct UnixSocketAddressTests {
    static let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2

    @Test func aPathCountsItsTerminatingZeroAndTheLongestFits() throws {
        let path = "/" + String(repeating: "p", count: AgentSocketPath.maximumLength - 1)
        let address = try #require(UnixSocketAddress(path: path))
        #expect(Int(address.length) == Self.pathOffset + AgentSocketPath.maximumLength + 1)
        let (family, bytes) = address.withSocketAddress { pointer, length in
            pointer.withMemoryRebound(to: sockaddr_un.self, capacity: 1) { unix in
                (Int32(unix.pointee.sun_family), withUnsafeBytes(of: unix.pointee.sun_path) { Array($0) })
            }
        }
        #expect(family == AF_UNIX)
        #expect(bytes.prefix(path.utf8.count) == ArraySlice(path.utf8))
        #expect(bytes[path.utf8.count] == 0)
    }

    @Test func aPathTooLongEmptyOrWithANulByteIsRefused() {
        #expect(UnixSocketAddress(path: "/" + String(repeating: "p", count: AgentSocketPath.maximumLength)) == nil)
        #expect(UnixSocketAddress(path: "") == nil)
        #expect(UnixSocketAddress(path: "/tmp/a\u{0}b") == nil)
    }

    @Test func anAbstractNameHasNoTerminatingZero() throws {
        let name = Array("vault-test".utf8)
        let address = try #require(UnixSocketAddress(abstractName: name))
        #expect(Int(address.length) == Self.pathOffset + 1 + name.count)
        let longest = [UInt8](repeating: 0x61, count: AgentSocketPath.maximumLength)
        #expect(UnixSocketAddress(abstractName: longest) != nil)
        #expect(UnixSocketAddress(abstractName: longest + [0x61]) == nil)
        #expect(UnixSocketAddress(abstractName: []) == nil)
    }
}
