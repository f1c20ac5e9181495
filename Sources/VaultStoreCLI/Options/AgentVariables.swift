// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAgentProtocol

/// The variables that say whether and where the commands reach `vault agent`.
package enum AgentVariables {
    /// The agent's socket: nil with `VAULT_AGENT=off` (never ask the agent); else
    /// `VAULT_AGENT_SOCKET` when it is set and not empty; else the standard path
    /// (``AgentSocketPath/standard(runtimeDirectory:uid:)`` under `XDG_RUNTIME_DIR`).
    package static func socketPath(_ variables: [String: String]) -> String? {
        if variables["VAULT_AGENT"] == "off" { return nil }
        if let socket = variables["VAULT_AGENT_SOCKET"], !socket.isEmpty { return socket }
        return AgentSocketPath.standard(runtimeDirectory: variables["XDG_RUNTIME_DIR"])
    }
}
