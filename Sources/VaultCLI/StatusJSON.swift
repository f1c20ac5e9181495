// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The object `vault status --json` prints, in its stable field names (the command's help
/// lists them). A value that is not known is JSON's null, never left out, so scripts can
/// tell "unknown" from a field of another version; `signed_in_as`'s `name` and `email` are
/// left out when the ID token had none.
struct StatusJSON: Encodable {
    struct Account: Encodable {
        var server: String
        var account: String
        @NullWhenAbsent var provider: String?
        @NullWhenAbsent var grant: String?
        @NullWhenAbsent var accessTokenExpiresAt: String?
        var accessTokenValid: Bool
        var refreshToken: Bool
        @NullWhenAbsent var refreshTokenExpiresAt: String?
        @NullWhenAbsent var lastRefreshAt: String?
        var passwordStored: Bool
        @NullWhenAbsent var coolDownUntil: String?
        var usable: Bool
        @NullWhenAbsent var signedInAs: Identity?
        /// Present when an agent answered.
        var agent: KeptAccount?

        enum CodingKeys: String, CodingKey {
            case server, account, provider, grant, usable, agent
            case accessTokenExpiresAt = "access_token_expires_at", accessTokenValid = "access_token_valid"
            case refreshToken = "refresh_token", refreshTokenExpiresAt = "refresh_token_expires_at"
            case lastRefreshAt = "last_refresh_at", passwordStored = "password_stored", coolDownUntil = "cool_down_until"
            case signedInAs = "signed_in_as"
        }
    }

    struct Identity: Encodable {
        var sub: String
        var issuer: String
        var name: String?
        var email: String?
    }

    /// What the agent does with the account.
    struct KeptAccount: Encodable {
        var kept: Bool
        @NullWhenAbsent var state: String?
        @NullWhenAbsent var nextRefreshAt: String?
        @NullWhenAbsent var lastRefreshAt: String?
        @NullWhenAbsent var lastError: String?

        enum CodingKeys: String, CodingKey {
            case kept, state
            case nextRefreshAt = "next_refresh_at", lastRefreshAt = "last_refresh_at", lastError = "last_error"
        }
    }

    struct Agent: Encodable {
        var version: String
        var locked: Bool
    }

    var backend: String
    var backendReason: String
    var usable: Bool
    var accounts: [Account]
    /// Present when an agent answered.
    var agent: Agent?

    enum CodingKeys: String, CodingKey {
        case backend, usable, accounts, agent
        case backendReason = "backend_reason"
    }
}
