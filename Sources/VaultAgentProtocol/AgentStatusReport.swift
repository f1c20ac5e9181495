// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The agent's view of the accounts it keeps: its `status` answer (``AgentStatusReply``),
/// as JSON text, written by the agent and read by `vault status`:
///
/// ```
/// {"agent":"vault-agent 1","locked":false,"accounts":[{"server":"https://id.example.com",
///  "account":"ann","kept":true,"next_refresh_at":"2026-11-26T18:30:00Z",
///  "last_refresh_at":"2026-11-26T18:15:00Z","last_error":null,"state":"kept"}]}
/// ```
///
/// Times are ISO 8601 in UTC, whole seconds; `null` when unknown. `state` is `kept`,
/// `needs login` (a person must log in; not refreshed until then) or `locked` (the vault
/// is locked: nothing is refreshed). `last_error` is one line without a secret. Read
/// leniently: a missing `kept` or `locked` is false and a missing `state` unknown, so an
/// agent of another version still reports.
public struct AgentStatusReport: Codable, Equatable, Sendable {
    /// One account the agent knows.
    public struct Account: Codable, Equatable, Sendable {
        public var server: String
        public var account: String
        /// True when the agent keeps the account's session alive.
        public var kept: Bool
        public var nextRefreshAt: String?
        public var lastRefreshAt: String?
        public var lastError: String?
        /// `kept`, `needs login` or `locked`; nil when the agent did not say.
        public var state: String?

        /// An account as the agent reports it.
        public init(
            server: String, account: String, kept: Bool, nextRefreshAt: String?, lastRefreshAt: String?, lastError: String?,
            state: String?
        ) {
            self.server = server
            self.account = account
            self.kept = kept
            self.nextRefreshAt = nextRefreshAt
            self.lastRefreshAt = lastRefreshAt
            self.lastError = lastError
            self.state = state
        }

        enum CodingKeys: String, CodingKey {
            case server, account, kept, state
            case nextRefreshAt = "next_refresh_at"
            case lastRefreshAt = "last_refresh_at"
            case lastError = "last_error"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            server = try container.decode(String.self, forKey: .server)
            account = try container.decode(String.self, forKey: .account)
            kept = (try? container.decodeIfPresent(Bool.self, forKey: .kept)) ?? false
            nextRefreshAt = try? container.decodeIfPresent(String.self, forKey: .nextRefreshAt)
            lastRefreshAt = try? container.decodeIfPresent(String.self, forKey: .lastRefreshAt)
            lastError = try? container.decodeIfPresent(String.self, forKey: .lastError)
            state = try? container.decodeIfPresent(String.self, forKey: .state)
        }

        /// Every key, `null` included.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(server, forKey: .server)
            try container.encode(account, forKey: .account)
            try container.encode(kept, forKey: .kept)
            try container.encode(nextRefreshAt, forKey: .nextRefreshAt)
            try container.encode(lastRefreshAt, forKey: .lastRefreshAt)
            try container.encode(lastError, forKey: .lastError)
            try container.encode(state, forKey: .state)
        }
    }

    /// The agent's version line.
    public var agent: String
    /// True after `vault lock`: it holds no key.
    public var locked: Bool
    public var accounts: [Account]

    /// A report of `accounts` by the agent `agent`.
    public init(agent: String, locked: Bool, accounts: [Account]) {
        self.agent = agent
        self.locked = locked
        self.accounts = accounts
    }

    enum CodingKeys: String, CodingKey { case agent, locked, accounts }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        agent = try container.decode(String.self, forKey: .agent)
        locked = (try? container.decodeIfPresent(Bool.self, forKey: .locked)) ?? false
        accounts = try container.decode([Account].self, forKey: .accounts)
    }
}
