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
        let memory = try await RejectionMemory.load(account)
        let credential = password ?? Secret("client-credentials:\(provider.name)")
        if let rejection = memory.rejection, rejection.matches(credential),
            clock.now().timeIntervalSince(rejection.rejectedAt) < policy.coolDown
        {
            logger.notice("not logging in again: the same stored credentials were rejected less than \(Int(policy.coolDown)) s ago")
            throw Self.rejected(account)
        }
        do {
            let tokens = try await provider.login(account: account.account, password: password)
            if memory.rejection != nil { try await RejectionMemory.save(account, rejection: nil) }
            logger.info("logged in again as \(account.account) with the stored credentials")
            return tokens
        } catch {
            guard case .authentication = error else { throw error }
            try await RejectionMemory.save(account, rejection: .init(credential: credential, at: clock.now()))
            throw Self.rejected(account)
        }
    }

    /// Forgets a remembered rejection (after an interactive login).
    public static func clearRejection(_ account: AccountItems) async throws(AuthError) {
        if try await RejectionMemory.load(account).rejection != nil {
            try await RejectionMemory.save(account, rejection: nil)
        }
    }
}

/// The remembered rejection of an account, kept inside its `.settings` item.
struct RejectionMemory {
    struct Rejection: Codable, Equatable {
        var salt: [UInt8]
        var fingerprint: [UInt8]
        var rejectedAt: Date

        init(credential: Secret, at date: Date) {
            var generator = SystemRandomNumberGenerator()
            salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            fingerprint = Rejection.fingerprint(credential, salt: salt)
            rejectedAt = date
        }

        func matches(_ credential: Secret) -> Bool { Rejection.fingerprint(credential, salt: salt) == fingerprint }

        static func fingerprint(_ credential: Secret, salt: [UInt8]) -> [UInt8] {
            Array(HMAC<SHA256>.authenticationCode(for: credential.bytes, using: SymmetricKey(data: salt)))
        }
    }

    var rejection: Rejection?

    static func load(_ account: AccountItems) async throws(AuthError) -> RejectionMemory {
        guard let data = try await account.loadSettingsData(),
            let object = try? JSONSerialization.jsonObject(with: Data(data)) as? [String: Any],
            let raw = object["rejection"] as? [String: Any], JSONSerialization.isValidJSONObject(raw),
            let json = try? JSONSerialization.data(withJSONObject: raw),
            let rejection = try? decoder.decode(Rejection.self, from: json)
        else { return RejectionMemory(rejection: nil) }
        return RejectionMemory(rejection: rejection)
    }

    static func save(_ account: AccountItems, rejection: Rejection?) async throws(AuthError) {
        guard let data = try await account.loadSettingsData(),
            var object = try? JSONSerialization.jsonObject(with: Data(data)) as? [String: Any]
        else { return }
        if let rejection, let json = try? encoder.encode(rejection) {
            object["rejection"] = try? JSONSerialization.jsonObject(with: json)
        } else {
            object["rejection"] = nil
        }
        guard let updated = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        try await account.saveSettingsData(Array(updated))
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}
