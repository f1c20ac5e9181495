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
        // The raw parts, not `url.user`: that is the decoded one, nil when it does not decode (`%aa`).
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw .invalidRequest("not an absolute http(s) URL: \(redacted(url))")
        }
        guard components.percentEncodedUser == nil, components.percentEncodedPassword == nil else {
            throw .invalidRequest("refusing a URL with user info (user@host): \(redacted(url))")
        }
        guard hasUsablePort(components) else {
            throw .invalidRequest("refusing a URL whose port is not 1 to 65535: \(redacted(url))")
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

    /// True when the port as written is absent, empty or 1...65535: swift-nio traps on a
    /// greater one (an IP host), and Foundation reads one that overflows as no port at all.
    static func hasUsablePort(_ components: URLComponents) -> Bool {
        guard let range = components.rangeOfPort, let text = components.string?[range], !text.isEmpty else { return true }
        guard text.utf8.count <= 5, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let port = Int(text) else { return false }
        return (1...65535).contains(port)
    }

    /// True for 127.0.0.0/8 (dotted decimal, four parts, no leading zeros, no signs), ::1
    /// and `localhost` itself. Other names under `.localhost` are not trusted: a resolver
    /// may send them anywhere, and so may a name that only looks like an address.
    public static func isLoopback(_ host: String) -> Bool {
        if isLoopbackIPv4(host) { return true }
        let canonical = Origin.canonicalHost(host)
        return canonical == "localhost" || canonical == "::1"
    }

    /// `127.A.B.C`, as `inet_pton(AF_INET)` reads an address: four decimal parts of 0...255,
    /// no leading zero, no sign, nothing around. A NUL byte would end the C string early
    /// (`127.0.0.1\0.evil`), so a host holding one is none.
    private static func isLoopbackIPv4(_ host: String) -> Bool {
        guard host.utf8.count <= 15, !host.utf8.contains(0) else { return false }
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else { return false }
        return UInt32(bigEndian: address.s_addr) >> 24 == 127
    }

    /// True when both URLs have an origin and it is the same (see `Origin`).
    public static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        guard let first = Origin(a), let second = Origin(b) else { return false }
        return first == second
    }

    /// The URL without user info, query or fragment, control characters escaped, for
    /// messages.
    package static func redacted(_ url: URL) -> String {
        // Without a host, what looks like user info may be anything: the text rule.
        guard url.host != nil else { return redacted(text: url.absoluteString) }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.user = nil
        components?.password = nil
        components?.query = nil
        components?.fragment = nil
        return TextEscaping.escaped(components?.string ?? "<url>")
    }

    /// `text`, a URL or what was meant to be one, for a message: what lies between the start
    /// of its authority (after a leading `scheme://`, else the start of the text) and its
    /// last `@` (user info, even one that does not parse) becomes `…@`, what follows the
    /// first `?` or `#` is left out, control characters are escaped and at most 200
    /// characters are kept.
    public static func redacted(text: String) -> String {
        var rest = Substring(text)
        let authority = leadingSchemeEnd(rest) ?? rest.startIndex
        if let at = rest.lastIndex(of: "@"), at >= authority {
            rest = Substring(rest[..<authority] + "…@" + rest[rest.index(after: at)...])
        }
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        let kept = rest.count > 200 ? rest.prefix(200) + "…" : String(rest)
        return TextEscaping.escaped(kept)
    }

    /// The end of a leading `scheme://` (RFC 3986's scheme characters), or nil: a `://`
    /// later in the text (in a query, after user info) does not start the authority.
    private static func leadingSchemeEnd(_ text: Substring) -> Substring.Index? {
        guard let first = text.first, first.isASCII, first.isLetter else { return nil }
        let scheme = text.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
        let rest = text[scheme.endIndex...]
        return rest.hasPrefix("://") ? text.index(scheme.endIndex, offsetBy: 3) : nil
    }
}
