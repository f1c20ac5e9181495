// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

/// Turns what a user names as the target of a request (`/api/get_devs`, `api/x?q=1`, or a
/// full URL) into the URL to send, never letting the target leave the server's origin.
///
/// - A target that starts with a scheme (`https:`) is an absolute URL: it must have the
///   base's origin (`Origin`) and no user info.
/// - Anything else is a path (with an optional query) on the base URL: `/x` and `x`
///   both name `BASE/x`. A query may hold anything, `://` included.
/// - A target starting with `//` is a network-path reference (another host) and is
///   refused, as are backslashes (`/\host` is `//host` to many parsers), control
///   characters, spaces and a fragment-only or empty target.
public enum RequestTarget {
    /// The URL for `target` on `base`, or `.invalidRequest` saying why not.
    public static func resolve(_ target: String, against base: URL) throws(AuthError) -> URL {
        guard let baseOrigin = Origin(base) else { throw .invalidRequest("not an http(s) URL: \(URLPolicy.redacted(base))") }
        guard !target.isEmpty else { throw .invalidRequest("the target is empty: give a path such as /api/x") }
        guard !target.hasPrefix("#") else { throw .invalidRequest("the target is only a fragment: give a path such as /api/x") }
        if let bad = target.unicodeScalars.first(where: { $0.value <= 0x20 || $0.value == 0x7F || $0 == "\\" }) {
            let what = bad == "\\" ? "a backslash" : bad == " " ? "a space (write it as %20)" : "a control character"
            throw .invalidRequest("the target contains \(what)")
        }
        let url: URL
        if hasScheme(target) {
            guard let absolute = URL(string: target) else { throw .invalidRequest("not a URL: \(URLPolicy.redacted(text: target))") }
            url = absolute
        } else {
            guard !target.hasPrefix("//") else {
                throw .invalidRequest("a target starting with // names another host; give a path (/x) or the server's full URL")
            }
            var path = Substring(target)
            if path.hasPrefix("/") { path = path.dropFirst() }
            var prefix = base.absoluteString
            if let cut = prefix.firstIndex(where: { $0 == "?" || $0 == "#" }) { prefix = String(prefix[..<cut]) }
            while prefix.hasSuffix("/") { prefix.removeLast() }
            guard let relative = URL(string: prefix + "/" + path) else {
                throw .invalidRequest("not a path: \(TextEscaping.escaped(target))")
            }
            url = relative
        }
        try URLPolicy.check(url)
        guard let origin = Origin(url), origin == baseOrigin else {
            let other = Origin(url).map(\.description) ?? "an unknown host"
            throw .invalidRequest("refusing to send the token to another origin (\(TextEscaping.escaped(other)), not \(baseOrigin))")
        }
        return url
    }

    /// True when `text` starts with `scheme:` (RFC 3986 §3.1: a letter, then letters,
    /// digits, `+`, `-` or `.`).
    static func hasScheme(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":") else { return false }
        let scheme = text[..<colon].unicodeScalars
        guard let first = scheme.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return scheme.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)) }
    }
}
