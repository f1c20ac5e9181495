// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAgentProtocol

/// The agent's `VAULT_*` variables: where `vault agent` listens and where the commands ask
/// it, one rule for both.
package enum AgentVariables {
    /// The socket path, overriding the standard one.
    package static let socket = "VAULT_AGENT_SOCKET"
    /// `off`: the commands never ask the agent (they do the work themselves).
    package static let switchName = "VAULT_AGENT"

    /// Where the commands ask the agent: ``listenPath(_:)``, or nil when `VAULT_AGENT=off`.
    package static func socketPath(_ variables: [String: String]) -> String? {
        variables[switchName] == "off" ? nil : listenPath(variables)
    }

    /// Where `vault agent` listens (when systemd passes no socket): `VAULT_AGENT_SOCKET`
    /// when set and not empty, else ``AgentSocketPath/standard(runtimeDirectory:uid:)`` under
    /// `XDG_RUNTIME_DIR` (a private directory under `/tmp` when that is unset).
    package static func listenPath(_ variables: [String: String]) -> String {
        if let path = variables[socket], !path.isEmpty { return path }
        return AgentSocketPath.standard(runtimeDirectory: variables["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 })
    }
}
