// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultAgentProtocol
import VaultStore
import VaultStoreCLI

/// What `vault status` reads of the agent's report (``AgentStatusReport``).
extension AgentStatusReport {
    /// What the agent knows of `account` on `server` (compared as ``ServerName`` spells it), if anything.
    func account(server: String, account: String) -> Account? {
        accounts.first { ServerName.normalized($0.server) == server && $0.account == account }
    }

    /// Asks the agent that may be asked (``AgentAccess/forAsking(_:verbose:)``) about the
    /// store `configuration` selects; nil when none answers (with `-v`, why).
    static func ask(_ configuration: StoreConfiguration) -> AgentStatusReport? {
        guard let agent = AgentAccess.forAsking(configuration.variables, verbose: configuration.verbose),
            let fields = agent.ask(.status(store: configuration.agentStoreKey), timeout: AgentAccess.shortTimeout, doingTheWorkHere: false)
        else { return nil }
        guard let reply = AgentStatusReply(fields: fields), let report = parse(reply.json) else {
            if configuration.verbose { Terminal.note("agent: \(AgentClientError.malformed.description)") }
            return nil
        }
        return report
    }

    /// The report in the JSON text `bytes`, or nil when it is not one.
    static func parse(_ bytes: [UInt8]) -> AgentStatusReport? {
        try? JSONDecoder().decode(AgentStatusReport.self, from: Data(bytes))
    }
}

extension AgentStatusReport.Account {
    /// When the agent refreshes next, if it said.
    var nextRefresh: Date? { Self.date(nextRefreshAt) }
    /// When the agent last refreshed, if it said.
    var lastRefresh: Date? { Self.date(lastRefreshAt) }

    /// An ISO 8601 time (with or without fractional seconds), else nil.
    private static func date(_ text: String?) -> Date? {
        guard let text else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
