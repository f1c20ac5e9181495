// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAgentProtocol

/// The agent's socket protocol (docs/agent.md): what a client sends the agent and what the
/// agent answers. Invariant: a payload either is refused or is exactly the encoding of
/// what it decodes to (one spelling per message, so no two readings of the same bytes).
enum AgentProtocolTargets {
    static let request = FuzzTarget(
        name: "agent-request",
        summary: "a request payload to vault agent: refused, or re-encodes to the same bytes"
    ) { bytes throws(InvariantViolation) in
        guard let request = AgentRequest.decode(bytes) else { return }
        try require(request.encoded() == bytes, "request \(request) re-encodes to other bytes")
        try require(AgentRequest.decode(request.encoded()) == request, "request \(request) does not decode to itself")
    }

    static let answer = FuzzTarget(
        name: "agent-answer",
        summary: "an answer payload from vault agent: refused, or re-encodes to the same bytes"
    ) { bytes throws(InvariantViolation) in
        guard let answer = AgentAnswer.decode(bytes) else { return }
        try require(answer.encoded() == bytes, "answer re-encodes to other bytes")
        try require(AgentAnswer.decode(answer.encoded()) == answer, "answer does not decode to itself")
    }
}
