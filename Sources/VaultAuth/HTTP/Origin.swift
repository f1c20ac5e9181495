// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The origin of an http(s) URL (RFC 6454): scheme, host and port, normalised so that
/// two spellings of one origin compare equal and nothing else does.
///
/// - The scheme and host are lower-cased; an IPv6 literal is put in its canonical form
///   (`[0:0::1]` and `[::1]` are one host); the port is the explicit one or the scheme's
///   default (80, 443), so `https://a.example` and `https://A.EXAMPLE:443` are one origin.
/// - A trailing dot (`example.com.`) is kept: it names the same DNS host but another
///   origin, and vault sends tokens only where it is sure.
/// - Only `http` and `https` URLs with a host have an origin.
public struct Origin: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`, lower-cased.
    public let scheme: String
    /// The host, lower-cased and without IPv6 brackets (an IPv6 literal in canonical form); a trailing dot is kept.
    public let host: String
    /// The explicit port, else the scheme's default (80 or 443); always in 1...65535.
    public let port: Int

    /// The origin of `url`, or nil when it is not an absolute http(s) URL with a host.
    /// The URL's own `scheme`, `host` and `port` are read: they are what the transport
    /// connects to.
    public init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let rawHost = url.host, !rawHost.isEmpty
        else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else { return nil }
        self.scheme = scheme
        self.host = Self.canonicalHost(rawHost)
        self.port = port
    }

    /// The host lower-cased, without IPv6 brackets, an IPv6 literal in canonical form.
    static func canonicalHost(_ host: String) -> String {
        // The common case, an ASCII name or IPv4 address already in lower case, costs one pass.
        if !host.utf8.contains(where: { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "[") || (0x41...0x5A).contains($0) || $0 >= 0x80 }) {
            return host
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard bare.utf8.contains(UInt8(ascii: ":")) else { return bare.lowercased() }
        var address = in6_addr()
        guard inet_pton(AF_INET6, bare, &address) == 1 else { return bare.lowercased() }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return bare.lowercased() }
        let text = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: text, as: UTF8.self)
    }

    /// `SCHEME://HOST:PORT`, the port always shown and an IPv6 host in brackets.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost):\(port)"
    }
}
