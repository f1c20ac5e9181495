// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultAgentProtocol

extension AgentStatusReport {
    /// The report of the accounts `keepers` keep, by the agent `agent`.
    init(agent: String, locked: Bool, keepers: [AccountKeeper.Status]) {
        self.init(
            agent: agent, locked: locked,
            accounts: keepers.map { status in
                Account(
                    server: status.account.server, account: status.account.account, kept: status.kept,
                    nextRefreshAt: status.nextRefreshAt.map(Self.timestamp), lastRefreshAt: status.lastRefreshAt.map(Self.timestamp),
                    lastError: status.lastError, state: locked ? "locked" : status.needsLogin ? "needs login" : "kept")
            })
    }

    /// The JSON text (keys sorted, so the text is stable).
    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// `date` in ISO 8601, UTC, whole seconds.
    static func timestamp(_ date: Date) -> String {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)).formatted(.iso8601)
    }
}
