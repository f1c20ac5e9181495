// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

extension AgentVariables {
    /// Where `vault agent` listens when systemd passes no socket (and where `--check`
    /// asks): ``socketPath(_:)``'s rule, `VAULT_AGENT=off` aside (that switch is the
    /// commands', not the agent's).
    package static func listenPath(_ variables: [String: String]) -> String {
        var agentOn = variables
        agentOn["VAULT_AGENT"] = nil
        return socketPath(agentOn) ?? ""
    }
}
