// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAgentProtocol

/// The agent's state: the accounts it keeps alive, their token sources, token files and
/// the store's key. Answers the socket's requests (``AgentServing``).
public actor Agent: AgentServing {
    /// The agent's version line, answered to `ping`.
    public static let versionLine = "vault-agent 1"

    public let configuration: AgentConfiguration

    public init(configuration: AgentConfiguration) {
        self.configuration = configuration
    }

    /// Starts keeping the accounts (refreshes ahead of expiry, token files) until `stop()`.
    public func start() async {}

    /// Stops every keep-alive task and waits for writes under way to finish.
    public func stop() async {}

    public nonisolated func answer(_ request: AgentRequest) async -> AgentAnswer {
        switch request {
        case .ping: .done([Array(Self.versionLine.utf8)])
        default: .declined(reason: "not served yet")
        }
    }
}
