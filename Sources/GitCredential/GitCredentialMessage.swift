// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// One message of git's credential helper protocol (`gitcredentials(7)`,
/// `git-credential(1)`): `key=value` lines, ended by a blank line or the end of input.
///
/// Only the attributes a helper acts on are kept: `protocol`, `host` (with its port),
/// `path`, `username`, `password`, `password_expiry_utc` and `oauth_refresh_token`. Other
/// keys (`capability[]`, `authtype`, `credential`, `wwwauth[]`, `state[]`, whatever git
/// adds later) are ignored, as the protocol asks. A line without `=`, a NUL byte or text
/// that is not UTF-8 is refused (`.invalidInput`, never echoing the line).
package struct GitCredentialMessage: Sendable, Equatable {
    package var `protocol`: String?
    package var host: String?
    package var path: String?
    package var username: String?
    package var password: String?
    /// Seconds since the epoch, UTC, after which the password is no longer valid.
    package var passwordExpiryUTC: String?
    package var oauthRefreshToken: String?

    package init() {}

    /// The most git ever sends for one credential; more is not a credential.
    package static let byteLimit = 1 << 20

    /// Parses the lines of `bytes` up to the first blank line; a final line without a
    /// newline counts. A repeated key keeps its last value, as git's own parser does.
    package init(parsing bytes: [UInt8]) throws(VaultError) {
        guard !bytes.contains(0) else { throw .invalidInput("git sent a NUL byte in the credential") }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .invalidInput("git sent a credential that is not UTF-8 text")
        }
        for line in Self.lines(text) {
            if line.isEmpty { break }
            guard let equals = line.firstIndex(of: "=") else {
                throw .invalidInput("git sent a credential line without '=' (\(line.count) characters)")
            }
            let value = String(line[line.index(after: equals)...])
            switch line[..<equals] {
            case "protocol": self.protocol = value
            case "host": host = value
            case "path": path = value
            case "username": username = value
            case "password": password = value
            case "password_expiry_utc": passwordExpiryUTC = value
            case "oauth_refresh_token": oauthRefreshToken = value
            default: continue
            }
        }
    }

    /// `text` split at each line feed, one carriage return before it dropped (git's own
    /// parser does the same). Split on Unicode scalars, not characters: to Swift "\r\n" is
    /// one character, which a split at "\n" would not find.
    package static func lines(_ text: String) -> [Substring] {
        text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { scalars in
            let line = Substring(scalars)
            return line.unicodeScalars.last == "\r" ? Substring(line.unicodeScalars.dropLast()) : line
        }
    }

    /// The reply to `get`: `username`, `password` and the optional attributes that are
    /// set, one `key=value` line each. Empty when there is no password to give.
    package var reply: [UInt8] {
        guard let password else { return [] }
        var lines = ""
        if let username { lines += "username=\(username)\n" }
        lines += "password=\(password)\n"
        if let passwordExpiryUTC { lines += "password_expiry_utc=\(passwordExpiryUTC)\n" }
        if let oauthRefreshToken { lines += "oauth_refresh_token=\(oauthRefreshToken)\n" }
        return Array(lines.utf8)
    }
}
