// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

/// Where a browser sign-in's redirect comes back to: a loopback http URI (RFC 8252 §7.3).
///
/// RFC 8252 says a provider must accept any port for a loopback redirect URI, so by default
/// the listener takes a port the system picks (``anyPort``). Providers that compare redirect
/// URIs as strings (Glewlwyd) accept only the URI registered with them, port included:
/// ``init(parsing:)`` takes that URI (`--redirect-uri`), and the listener binds exactly its
/// host and port and serves its path; the URI is sent to the provider as it was given.
public struct LoopbackRedirect: Sendable, Equatable, CustomStringConvertible {
    /// The loopback hosts a redirect URI may name.
    public enum Host: String, Sendable, CaseIterable {
        /// `127.0.0.1`, RFC 8252's recommendation.
        case ipv4 = "127.0.0.1"
        /// `[::1]`.
        case ipv6 = "[::1]"
        /// `localhost`, which RFC 8252 §8.3 advises against but some registrations use; the
        /// listener binds 127.0.0.1 for it (a browser that tries ::1 first falls back).
        case localhost
    }

    /// The host the URI names.
    public let host: Host
    /// The port, or nil for one the system picks.
    public let port: Int?
    /// The path the redirect comes to, starting with `/`.
    public let path: String
    /// The URI as given, sent to the provider unchanged (nil for ``anyPort``).
    private let given: String?

    /// `http://127.0.0.1:PORT/callback` at a port the system picks: the default.
    public static let anyPort = LoopbackRedirect(host: .ipv4, port: nil, path: "/callback", given: nil)

    private init(host: Host, port: Int?, path: String, given: String?) {
        self.host = host
        self.port = port
        self.path = path
        self.given = given
    }

    /// The longest redirect URI taken.
    static let maximumLength = 512

    /// The redirect URI `text`: `http` to `127.0.0.1`, `[::1]` or `localhost`, a port (80 when
    /// none is written) and a path (`/` when none is); no user info, query or fragment, and no
    /// path under `/start/` (the listener's own link). Anything else is `.invalidRequest`.
    public init(parsing text: String) throws(AuthError) {
        let usage =
            "--redirect-uri must be a loopback http URI such as http://127.0.0.1:8400/callback "
            + "(host 127.0.0.1, [::1] or localhost; RFC 8252 §7.3)"
        guard text.count <= Self.maximumLength else {
            throw .invalidRequest("--redirect-uri is longer than \(Self.maximumLength) characters")
        }
        guard text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }),
            !text.contains("\\"), let components = URLComponents(string: text), components.scheme?.lowercased() == "http",
            let rawHost = components.host?.lowercased()
        else { throw .invalidRequest(usage) }
        guard components.user == nil, components.password == nil, components.query == nil, components.fragment == nil else {
            throw .invalidRequest("--redirect-uri must have no user info, query or fragment")
        }
        let host: Host
        switch rawHost {
        case "127.0.0.1": host = .ipv4
        case "::1", "[::1]": host = .ipv6
        case "localhost": host = .localhost
        default: throw .invalidRequest(usage)
        }
        let port = components.port ?? 80
        guard (1...65535).contains(port) else { throw .invalidRequest("--redirect-uri has a port outside 1 to 65535") }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        guard path.hasPrefix("/"), !path.hasPrefix("/start/") else {
            throw .invalidRequest("--redirect-uri's path must not start with /start/ (vault's sign-in link uses it)")
        }
        // A browser rewrites these before it sends the redirect, so the listener would never
        // see the path as registered: `.` and `..` segments, and escapes of characters that
        // need none (`%73tart` is `start`).
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !segments.contains(where: { $0 == "." || $0 == ".." || $0.lowercased() == "%2e" || $0.lowercased() == "%2e%2e" }),
            !Self.escapesUnreservedCharacter(path)
        else {
            throw .invalidRequest("--redirect-uri's path must have no . or .. segment and no %-escape of a letter, digit, -, ., _ or ~")
        }
        self.init(host: host, port: port, path: path, given: text)
    }

    /// True when `path` has a %-escape of an unreserved character (RFC 3986 §2.3), which
    /// browsers decode.
    private static func escapesUnreservedCharacter(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        for index in bytes.indices where bytes[index] == UInt8(ascii: "%") && index + 2 < bytes.count {
            guard let value = UInt8(String(decoding: bytes[index + 1...index + 2], as: UTF8.self), radix: 16) else { continue }
            let scalar = Unicode.Scalar(value)
            if ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || "-._~".unicodeScalars.contains(scalar)
            {
                return true
            }
        }
        return false
    }

    /// The URI, once the listener is bound to `boundPort`: as given, or
    /// `http://127.0.0.1:PORT/callback` for ``anyPort``.
    public func uri(boundPort: Int) -> String {
        given ?? "http://\(host.rawValue):\(boundPort)\(path)"
    }

    /// The address the listener binds.
    var bindAddress: String { host == .ipv6 ? "::1" : "127.0.0.1" }

    /// The `Host` headers a browser sends to the listener at `boundPort` (without the port
    /// for port 80, as browsers write it, and with it).
    func hostHeaders(boundPort: Int) -> Set<String> {
        let withPort = "\(host.rawValue):\(boundPort)"
        return boundPort == 80 ? [withPort, host.rawValue] : [withPort]
    }

    /// The address of the listener at `boundPort`, for links to it: `http://HOST:PORT`.
    func origin(boundPort: Int) -> String { "http://\(host.rawValue):\(boundPort)" }

    /// The URI as given, or the default's shape.
    public var description: String { given ?? "http://127.0.0.1:<any port>/callback" }
}
