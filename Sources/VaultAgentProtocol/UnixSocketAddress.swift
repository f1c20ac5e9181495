// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A Unix socket address (`sockaddr_un`) for a path, or for an abstract name: the one place
/// that fills `sun_path`, so that the client's connect, the agent's bind and sd_notify's
/// sendto agree on lengths and on what does not fit.
public struct UnixSocketAddress {
    private var address = sockaddr_un()
    /// The address's length: up to the path's terminating zero, or the abstract name's end.
    public let length: socklen_t

    /// The address of the socket file at `path`; nil when the path is empty, holds a NUL
    /// byte or is longer than ``AgentSocketPath/maximumLength`` bytes.
    public init?(path: String) {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, !bytes.contains(0) else { return nil }
        self.init(bytes: bytes, terminated: true)
    }

    /// The address of the abstract socket `name` (written `@name` by systemd: without the
    /// `@`); nil when the name is empty or longer than ``AgentSocketPath/maximumLength``.
    public init?(abstractName name: [UInt8]) {
        guard !name.isEmpty else { return nil }
        self.init(bytes: [0] + name, terminated: false)
    }

    private init?(bytes: [UInt8], terminated: Bool) {
        guard bytes.count <= AgentSocketPath.maximumLength + (terminated ? 0 : 1) else { return nil }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            if terminated { raw[bytes.count] = 0 }
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        length = socklen_t(pathOffset + bytes.count + (terminated ? 1 : 0))
    }

    /// Calls `body` with the address as a `sockaddr` and its length (for bind, connect, sendto).
    public func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafePointer(to: address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
