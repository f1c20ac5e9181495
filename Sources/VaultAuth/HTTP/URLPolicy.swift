// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

/// Which URLs VaultAuth may send credentials to.
public enum URLPolicy {
    /// Throws `.invalidRequest` unless `url` is https, or http to a loopback host
    /// (127.0.0.0/8, ::1, `localhost`), and carries no user info: tokens and passwords
    /// never travel in clear text over a network, nor to a host hidden behind `user@`.
    public static func check(_ url: URL) throws(AuthError) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw .invalidRequest("not an absolute http(s) URL: \(redacted(url))")
        }
        guard url.user == nil, url.password == nil else {
            throw .invalidRequest("refusing a URL with user info (user@host): \(redacted(url))")
        }
        switch scheme {
        case "https": return
        case "http":
            guard isLoopback(host) else {
                throw .invalidRequest(
                    "refusing plain http to \(TextEscaping.escaped(host)): use https (http is allowed only to loopback)")
            }
        default:
            throw .invalidRequest("unsupported URL scheme \(TextEscaping.escaped(scheme))")
        }
    }

    /// True for 127.0.0.0/8 (dotted decimal), ::1 and `localhost` itself. Other names
    /// under `.localhost` are not trusted: a resolver may send them anywhere.
    public static func isLoopback(_ host: String) -> Bool {
        let canonical = Origin.canonicalHost(host)
        if canonical == "localhost" || canonical == "::1" { return true }
        let parts = canonical.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127"
            && parts.allSatisfy { $0.count <= 3 && $0.allSatisfy(\.isASCII) && UInt8($0) != nil }
    }

    /// True when both URLs have an origin and it is the same (see `Origin`).
    public static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        guard let first = Origin(a), let second = Origin(b) else { return false }
        return first == second
    }

    /// The URL without user info, query or fragment, control characters escaped, for
    /// messages.
    static func redacted(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.user = nil
        components?.password = nil
        components?.query = nil
        components?.fragment = nil
        return TextEscaping.escaped(components?.string ?? "<url>")
    }
}
