// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import GitCredential
import VaultStore

/// git's credential protocol as git-credential-vault reads it (``GitCredentialMessage``).
enum GitCredentialTargets {
    /// The attributes vault keeps, as `(name, value)` pairs in protocol order.
    static func attributes(_ message: GitCredentialMessage) -> [(String, String?)] {
        [
            ("protocol", message.protocol), ("host", message.host), ("path", message.path), ("username", message.username),
            ("password", message.password), ("password_expiry_utc", message.passwordExpiryUTC),
            ("oauth_refresh_token", message.oauthRefreshToken),
        ]
    }

    /// The message as git writes one, each line ended by CR LF: the reader drops one CR
    /// before each LF, so this spelling keeps a value that ends in a CR.
    static func encode(_ message: GitCredentialMessage) -> [UInt8] {
        attributes(message).reduce(into: []) { bytes, attribute in
            guard let value = attribute.1 else { return }
            bytes += Array("\(attribute.0)=\(value)\r\n".utf8)
        }
    }

    /// The time the stored-secret round trip is checked at (no clock in a fuzz target).
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Invariants: a refusal is `.invalidInput`; every value kept is a line's text after its
    /// key and `=`, found verbatim in the input, without a line feed; the message re-encodes
    /// to lines that parse to the same value, byte for byte; and what `store` keeps of it
    /// (``GitCredentialItem/secret(for:)``) gives back, in the reply to `get`, the same
    /// password, expiry and refresh token (a value ending in CR loses it there: git's own
    /// reader drops a CR before LF, so the protocol cannot carry one back either).
    static let message = FuzzTarget(
        name: "git-credential",
        summary: "a credential message from git: refused as invalid input, or re-encodes to the same value; store then get keeps it"
    ) { bytes throws(InvariantViolation) in
        let message: GitCredentialMessage
        do throws(VaultError) {
            message = try GitCredentialMessage(parsing: bytes)
        } catch {
            guard case .invalidInput = error else { throw InvariantViolation("a message was refused with an undocumented error: \(error)") }
            return
        }
        for case let (name, value?) in attributes(message) {
            try require(!value.unicodeScalars.contains("\n"), "\(name) holds a line feed")
            try require(contains(bytes, Array("\(name)=\(value)".utf8)), "\(name)'s value is not in the input as sent")
        }
        let encoded = encode(message)
        let again: GitCredentialMessage
        do throws(VaultError) {
            again = try GitCredentialMessage(parsing: encoded)
        } catch {
            throw InvariantViolation("a parsed message re-encodes to lines that are refused: \(error)")
        }
        try require(encode(again) == encoded, "a parsed message re-encodes to lines that parse to another message")
        try require(again == message, "a parsed message re-encodes to lines that parse to an unequal message")
        try requireStoredSecretRoundTrips(message)
    }

    /// `store` then `get`: the reply for the kept secret gives back what git stored.
    private static func requireStoredSecretRoundTrips(_ message: GitCredentialMessage) throws(InvariantViolation) {
        guard let password = message.password else { return }
        let secret = GitCredentialItem.secret(for: message)
        guard let reply = GitCredentialItem.reply(account: message.username ?? "", secret: secret, now: now) else {
            let expired = message.passwordExpiryUTC.flatMap { Int64(Self.droppingFinalCR($0)) }.map { Double($0) <= now.timeIntervalSince1970 }
            try require(expired == true || password.contains("\0"), "a stored password that has not expired is not given back")
            return
        }
        try require(utf8(reply.password) == utf8(droppingFinalCR(password)), "get gives back another password")
        try require(
            utf8(reply.passwordExpiryUTC) == utf8(message.passwordExpiryUTC.map(droppingFinalCR)), "get gives back another password expiry")
        try require(
            utf8(reply.oauthRefreshToken) == utf8(message.oauthRefreshToken.map(droppingFinalCR)), "get gives back another refresh token")
    }

    private static func utf8(_ value: String?) -> [UInt8]? { value.map { Array($0.utf8) } }

    private static func droppingFinalCR(_ value: String) -> String {
        value.unicodeScalars.last == "\r" ? String(value.unicodeScalars.dropLast()) : value
    }

    private static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= bytes.count else { return needle.isEmpty }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
