// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAgentProtocol

/// What the socket server (``AgentSocketServer``) asks of the agent's state (``Agent``):
/// one answer per request, never a secret in a `declined` reason. Called concurrently, for
/// many clients at once; a slow account must not hold up an answer about another.
public protocol AgentServing: Sendable {
    /// The answer to `request`, from a client whose uid the server has checked.
    func answer(_ request: AgentRequest) async -> AgentAnswer
}
