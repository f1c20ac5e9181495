// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import FoundationEssentials
import VaultStore

/// Where a git credential lives in a vault, and how its secret is written, so that git's
/// own libsecret helper and vault read each other's items.
///
/// The item is the one `vault save --server PROTOCOL://HOST[:PORT][/PATH] --account USER`
/// names; on the Secret Service that is exactly the attribute set `git-credential-libsecret`
/// writes (`user`, `protocol`, `server` = host, `port` and `object` only when present).
/// The secret is the password, followed (as current git writes it) by
/// `\npassword_expiry_utc=…` and `\noauth_refresh_token=…` lines when git gave them.
package struct GitCredentialItem: Sendable, Equatable {
    /// `PROTOCOL://HOST[:PORT][/PATH]`, normalised as `vault save --server` normalises it.
    package let server: String

    /// The item's server for `message`, or nil when git named no protocol and host, or
    /// they cannot be part of a URL (then there is nothing to look up or keep).
    package init?(_ message: GitCredentialMessage) {
        // git has decoded the URL already: a `%` left in the host is part of its name, and
        // must not be decoded again into another host's (`ex%61mple.com` is not example.com).
        guard let scheme = message.protocol, let host = message.host, !scheme.isEmpty, !host.isEmpty,
            scheme.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || "0123456789+-.".unicodeScalars.contains($0)) }),
            !host.unicodeScalars.contains(where: { "/?#@%\\".unicodeScalars.contains($0) || $0.properties.isWhitespace || $0.value < 0x20 }),
            Self.portIsValid(in: host)
        else { return nil }
        var path = message.path ?? ""
        while path.hasPrefix("/") { path.removeFirst() }
        server = ServerName.normalized("\(scheme.lowercased())://\(host)" + (path.isEmpty ? "" : "/\(path)"))
    }

    /// A port after the host (after an IPv6 literal's `]`), when there is one, is 1 to 65535
    /// written without a sign or leading zero.
    static func portIsValid(in host: String) -> Bool {
        let afterLiteral = host.lastIndex(of: "]").map { host[host.index(after: $0)...] } ?? host[...]
        guard let colon = afterLiteral.lastIndex(of: ":") else { return true }
        let digits = afterLiteral[afterLiteral.index(after: colon)...]
        guard let first = digits.first, first != "0", digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = Int(digits)
        else { return false }
        return (1...65535).contains(port)
    }

    /// The key of `account`'s item.
    package func key(account: String) -> CredentialKey { CredentialKey(server: server, account: account) }

    /// The label git's libsecret helper gives its items: `Git: PROTOCOL://HOST[:PORT]/[PATH]`.
    package var label: String {
        let slashes = server.firstRange(of: "://").map { server[$0.upperBound...].contains("/") } ?? true
        return "Git: \(server)" + (slashes ? "" : "/")
    }

    /// The secret kept for `message`'s password and its optional attributes.
    package static func secret(for message: GitCredentialMessage) -> Secret {
        var text = message.password ?? ""
        if let expiry = message.passwordExpiryUTC { text += "\npassword_expiry_utc=\(expiry)" }
        if let token = message.oauthRefreshToken { text += "\noauth_refresh_token=\(token)" }
        return Secret(text)
    }

    /// The reply for a stored `secret` of `account`: the first line is the password; later
    /// `password_expiry_utc=` and `oauth_refresh_token=` lines are read, others ignored.
    /// Nil when the secret is not text, or its password has expired at `now`.
    package static func reply(account: String, secret: Secret, now: Date = Date()) -> GitCredentialMessage? {
        guard let text = secret.utf8String, !text.contains("\0") else { return nil }
        var lines = GitCredentialMessage.lines(text)
        var reply = GitCredentialMessage()
        reply.username = account
        reply.password = String(lines.removeFirst())
        for line in lines {
            if line.hasPrefix("password_expiry_utc=") { reply.passwordExpiryUTC = String(line.dropFirst(20)) }
            if line.hasPrefix("oauth_refresh_token=") { reply.oauthRefreshToken = String(line.dropFirst(20)) }
        }
        if let expiry = reply.passwordExpiryUTC, let seconds = Int64(expiry), Double(seconds) <= now.timeIntervalSince1970 {
            return nil
        }
        return reply
    }
}
