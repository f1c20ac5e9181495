// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// The agent's answer to `status` (`vault status`), as JSON text:
///
/// ```
/// {"agent":"vault-agent 1","locked":false,"accounts":[{"server":"https://id.example.com",
///  "account":"ann","kept":true,"next_refresh_at":"2026-11-26T18:30:00Z",
///  "last_refresh_at":"2026-11-26T18:15:00Z","last_error":null,"state":"kept"}]}
/// ```
///
/// Times are ISO 8601 in UTC, whole seconds; `null` when unknown. `state` is `kept`,
/// `needs login` (a person must log in; not refreshed until then) or `locked` (the vault
/// is locked: nothing is refreshed). `last_error` is one line without a secret.
struct AgentStatus: Codable, Equatable, Sendable {
    struct Account: Codable, Equatable, Sendable {
        var server: String
        var account: String
        var kept: Bool
        var nextRefreshAt: String?
        var lastRefreshAt: String?
        var lastError: String?
        var state: String

        enum CodingKeys: String, CodingKey {
            case server, account, kept, state
            case nextRefreshAt = "next_refresh_at"
            case lastRefreshAt = "last_refresh_at"
            case lastError = "last_error"
        }

        /// Every key, `null` included.
        func encode(to encoder: any Encoder) throws {
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

    var agent: String
    var locked: Bool
    var accounts: [Account]

    init(agent: String, locked: Bool, keepers: [AccountKeeper.Status]) {
        self.agent = agent
        self.locked = locked
        self.accounts = keepers.map { status in
            Account(
                server: status.account.server, account: status.account.account, kept: status.kept,
                nextRefreshAt: status.nextRefreshAt.map(Self.timestamp), lastRefreshAt: status.lastRefreshAt.map(Self.timestamp),
                lastError: status.lastError, state: locked ? "locked" : status.needsLogin ? "needs login" : "kept")
        }
    }

    /// The JSON text (keys sorted, so the text is stable).
    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    static func timestamp(_ date: Date) -> String {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)).formatted(.iso8601)
    }
}
