// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto
import Foundation
import Logging
import VaultStore

/// Logs in again, quietly, when a refresh fails as an authentication error (the refresh
/// token is dead, expired or revoked): it loads the account's password from the store,
/// logs in through the account's provider, and hands the new tokens to the TokenSource,
/// which stores them (and a Requester replays the request). It runs inside the
/// TokenSource's single flight, so one login serves every waiting request and every process.
///
/// When the server rejects the stored password, it reports `.authentication` ("stored
/// credentials were rejected", remedy: log in) and remembers a salted fingerprint of
/// that password (never the password): no further login is tried with the same password
/// until it changes (`vault save`, `vault login`) or the cool-down passes. Transient
/// failures (server down, 5xx, 429) change nothing stored. It never loops: one login
/// attempt per call.
public struct SilentReauthenticator: Reauthenticating {
    /// When a silent re-login may be tried again after the stored credentials were rejected.
    public struct Policy: Sendable, Equatable {
        /// How long a rejected password is not retried (default 5 minutes).
        public var coolDown: TimeInterval

        /// A policy that does not retry rejected credentials for `coolDown` seconds (default 300).
        public init(coolDown: TimeInterval = 300) { self.coolDown = coolDown }
    }

    /// The cool-down applied to rejected credentials.
    public let policy: Policy
    let clock: any AuthClock
    let logger: Logger

    /// A reauthenticator with `policy`; `clock` dates rejections and measures the cool-down.
    public init(policy: Policy = .init(), clock: any AuthClock = SystemClock(), logger: Logger = Logger(label: "vault.reauth")) {
        self.policy = policy
        self.clock = clock
        self.logger = logger
    }

    /// The message of the ``AuthError/authentication(_:providerCode:remedy:)`` thrown when the stored credentials
    /// are rejected, or were rejected less than ``Policy/coolDown`` ago.
    public static let rejectedMessage = "stored credentials were rejected"

    /// The error for `account`'s rejected credentials: ``rejectedMessage``, remedy ``AuthRemedy/logIn(server:account:)``.
    public static func rejected(_ account: AccountItems) -> AuthError {
        .authentication(rejectedMessage, remedy: .logIn(server: account.server, account: account.account))
    }

    /// Loads the stored password when the provider needs one (none: ``AuthError/authentication(_:providerCode:remedy:)``),
    /// then logs in once, unless the same credentials were rejected within the cool-down. Other failures are
    /// rethrown and change nothing stored. See ``Reauthenticating/reauthenticate(account:provider:after:)``.
    public func reauthenticate(
        account: AccountItems, provider: any AuthProvider, after failure: AuthError
    ) async throws(AuthError)
        -> TokenSet
    {
        var password: Secret?
        if provider.needsPassword {
            guard let stored = try await account.loadPassword() else {
                throw .authentication(
                    "the session has ended and no password is stored", remedy: .logIn(server: account.server, account: account.account))
            }
            password = stored
        }
        let remembered = try await account.loadRejection()
        let credential = password ?? Secret("client-credentials:\(provider.name)")
        if let rejection = remembered, rejection.matches(credential),
            clock.now().timeIntervalSince(rejection.rejectedAt) < policy.coolDown
        {
            logger.notice("not logging in again: the same stored credentials were rejected less than \(Int(policy.coolDown)) s ago")
            throw Self.rejected(account)
        }
        do {
            let tokens = try await provider.login(account: account.account, password: password)
            if remembered != nil { try await account.saveRejection(nil) }
            logger.info("logged in again as \(account.account) with the stored credentials")
            return tokens
        } catch {
            guard case .authentication = error else { throw error }
            try await account.saveRejection(CredentialRejection(credential: credential, at: clock.now()))
            throw Self.rejected(account)
        }
    }

    /// Forgets a remembered rejection (after an interactive login).
    public static func clearRejection(_ account: AccountItems) async throws(AuthError) {
        if try await account.loadRejection() != nil { try await account.saveRejection(nil) }
    }
}

/// Stored credentials a silent login saw rejected: a salted HMAC fingerprint of them (never
/// the credentials) and when. Kept in the account's settings (``LoginSettings``, key
/// `rejection`), in the JSON form items written before it was a field have: `salt` and
/// `fingerprint` as arrays of bytes, `rejectedAt` in seconds since 1970.
struct CredentialRejection: Codable, Equatable, Sendable {
    var salt: [UInt8]
    var fingerprint: [UInt8]
    var rejectedAt: Date

    init(credential: Secret, at date: Date) {
        var generator = SystemRandomNumberGenerator()
        salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        fingerprint = Self.fingerprint(credential, salt: salt)
        rejectedAt = date
    }

    func matches(_ credential: Secret) -> Bool { Self.fingerprint(credential, salt: salt) == fingerprint }

    static func fingerprint(_ credential: Secret, salt: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: credential.bytes, using: SymmetricKey(data: salt)))
    }

    private enum CodingKeys: String, CodingKey { case salt, fingerprint, rejectedAt }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        salt = try container.decode([UInt8].self, forKey: .salt)
        fingerprint = try container.decode([UInt8].self, forKey: .fingerprint)
        rejectedAt = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .rejectedAt))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(salt, forKey: .salt)
        try container.encode(fingerprint, forKey: .fingerprint)
        try container.encode(rejectedAt.timeIntervalSince1970, forKey: .rejectedAt)
    }
}

extension AccountItems {
    /// The rejection ``SilentReauthenticator`` remembers for the account (nil: none, or no settings).
    func loadRejection() async throws(AuthError) -> CredentialRejection? {
        try await loadSettingsData().flatMap(LoginSettings.decode)?.rejection
    }

    /// Remembers `rejection` (nil: forgets it) in the account's settings; nothing happens
    /// when the account has no settings to keep it in.
    func saveRejection(_ rejection: CredentialRejection?) async throws(AuthError) {
        guard let data = try await loadSettingsData(), var settings = LoginSettings.decode(data) else { return }
        settings.rejection = rejection
        try await saveSettingsData(settings.encoded())
    }
}
