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
        guard let scheme = message.protocol, let host = message.host, !scheme.isEmpty, !host.isEmpty,
            scheme.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || "0123456789+-.".unicodeScalars.contains($0)) }),
            !host.contains(where: { "/?#@ \\".contains($0) || $0.isWhitespace })
        else { return nil }
        var path = message.path ?? ""
        while path.hasPrefix("/") { path.removeFirst() }
        server = ServerName.normalized("\(scheme.lowercased())://\(host)" + (path.isEmpty ? "" : "/\(path)"))
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
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
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
