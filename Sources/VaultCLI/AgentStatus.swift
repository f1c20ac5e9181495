// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultAgentProtocol
import VaultStore
import VaultStoreCLI

/// The agent's view of the accounts it keeps, as its `status` answer gives it:
/// `{"agent": "vault-agent 1", "locked": bool, "accounts": [{"server", "account", "kept",
/// "next_refresh_at", "last_refresh_at", "last_error", "state"}]}` (times ISO 8601 or null).
struct AgentStatus: Sendable, Equatable {
    /// One account the agent knows.
    struct Account: Sendable, Equatable {
        var server: String
        var account: String
        var kept: Bool
        var nextRefresh: Date?
        var lastRefresh: Date?
        var lastError: String?
        var state: String?
    }

    /// The agent's version line.
    var version: String
    /// True after `vault lock`: it holds no key.
    var locked: Bool
    var accounts: [Account]

    /// What the agent knows of `account` on `server`, if anything.
    func account(server: String, account: String) -> Account? {
        accounts.first { $0.server == server && $0.account == account }
    }

    /// Asks the agent that may be asked (``AgentAccess/forAsking(_:verbose:)``) about the
    /// store `configuration` selects; nil when none answers (with `-v`, why).
    static func ask(_ configuration: StoreConfiguration) -> AgentStatus? {
        guard let agent = AgentAccess.forAsking(configuration.variables, verbose: configuration.verbose),
            let fields = agent.ask(.status(store: configuration.agentStoreKey), timeout: AgentAccess.shortTimeout, doingTheWorkHere: false)
        else { return nil }
        guard fields.count == 1, let status = parse(fields[0]) else {
            if configuration.verbose { Terminal.note("agent: \(AgentClientError.malformed.description)") }
            return nil
        }
        return status
    }

    /// The status in the JSON text `bytes`, or nil when it is not the object above.
    static func parse(_ bytes: [UInt8]) -> AgentStatus? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let version = object["agent"] as? String, let list = object["accounts"] as? [[String: Any]]
        else { return nil }
        var accounts: [Account] = []
        for entry in list {
            guard let server = entry["server"] as? String, let account = entry["account"] as? String else { return nil }
            accounts.append(
                Account(
                    server: ServerName.normalized(server), account: account, kept: entry["kept"] as? Bool ?? false,
                    nextRefresh: date(entry["next_refresh_at"]), lastRefresh: date(entry["last_refresh_at"]),
                    lastError: entry["last_error"] as? String, state: entry["state"] as? String))
        }
        return AgentStatus(version: version, locked: object["locked"] as? Bool ?? false, accounts: accounts)
    }

    /// An ISO 8601 time (with or without fractional seconds), else nil.
    private static func date(_ value: Any?) -> Date? {
        guard let text = value as? String else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
