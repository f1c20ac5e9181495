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
        var provider: String?
        var grant: String?
        var accessTokenExpiresAt: String?
        var accessTokenValid: Bool
        var refreshToken: Bool
        var refreshTokenExpiresAt: String?
        var lastRefreshAt: String?
        var passwordStored: Bool
        var coolDownUntil: String?
        var usable: Bool
        var signedInAs: Identity?
        /// Present when an agent answered.
        var agent: KeptAccount?

        enum CodingKeys: String, CodingKey {
            case server, account, provider, grant, usable, agent
            case accessTokenExpiresAt = "access_token_expires_at", accessTokenValid = "access_token_valid"
            case refreshToken = "refresh_token", refreshTokenExpiresAt = "refresh_token_expires_at"
            case lastRefreshAt = "last_refresh_at", passwordStored = "password_stored", coolDownUntil = "cool_down_until"
            case signedInAs = "signed_in_as"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(server, forKey: .server)
            try container.encode(account, forKey: .account)
            try container.encode(provider, forKey: .provider)
            try container.encode(grant, forKey: .grant)
            try container.encode(accessTokenExpiresAt, forKey: .accessTokenExpiresAt)
            try container.encode(accessTokenValid, forKey: .accessTokenValid)
            try container.encode(refreshToken, forKey: .refreshToken)
            try container.encode(refreshTokenExpiresAt, forKey: .refreshTokenExpiresAt)
            try container.encode(lastRefreshAt, forKey: .lastRefreshAt)
            try container.encode(passwordStored, forKey: .passwordStored)
            try container.encode(coolDownUntil, forKey: .coolDownUntil)
            try container.encode(usable, forKey: .usable)
            try container.encode(signedInAs, forKey: .signedInAs)
            try container.encodeIfPresent(agent, forKey: .agent)
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
        var state: String?
        var nextRefreshAt: String?
        var lastRefreshAt: String?
        var lastError: String?

        enum CodingKeys: String, CodingKey {
            case kept, state
            case nextRefreshAt = "next_refresh_at", lastRefreshAt = "last_refresh_at", lastError = "last_error"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kept, forKey: .kept)
            try container.encode(state, forKey: .state)
            try container.encode(nextRefreshAt, forKey: .nextRefreshAt)
            try container.encode(lastRefreshAt, forKey: .lastRefreshAt)
            try container.encode(lastError, forKey: .lastError)
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
