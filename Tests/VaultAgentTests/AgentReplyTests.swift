// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultAgentProtocol
import VaultTestSupport

/// The typed `done` answers: each reply survives the wire, and fields that are not a
/// reply's are refused as it, never half read.
@Suite(.offThePool) struct AgentReplyTests {
    /// `reply` as it reaches a client: encoded in a frame's payload, decoded, read as `R`.
    func overTheWire<R: AgentReply>(_ reply: R) -> R? {
        guard case .done(let fields)? = AgentAnswer.decode(AgentAnswer.done(reply).encoded()) else { return nil }
        return R(fields: fields)
    }

    @Test func repliesSurviveTheWire() {
        let token = AgentTokenReply(accessToken: Array("tok".utf8), expiresAt: 4_102_444_800, how: "logged in again")
        #expect(overTheWire(token) == token)
        let load = AgentLoadReply(secret: [0, 0xFF, 0x0A], label: "a label")
        #expect(overTheWire(load) == load)
        #expect(overTheWire(AgentPingReply(versionLine: "vault-agent 1")) == AgentPingReply(versionLine: "vault-agent 1"))
        #expect(overTheWire(AgentStatusReply(json: Array("{}".utf8))) == AgentStatusReply(json: Array("{}".utf8)))
        #expect(overTheWire(AgentEmptyReply()) == AgentEmptyReply())
    }

    @Test func tokenRepliesAreCheckedWhole() {
        let expiry = Array("4102444800".utf8)
        #expect(AgentTokenReply(fields: [Array("t".utf8), expiry])?.how == "", "an agent that does not say how")
        #expect(AgentTokenReply(fields: [[], expiry, []]) == nil, "an empty token")
        #expect(AgentTokenReply(fields: [Array("t".utf8), Array("soon".utf8), []]) == nil, "an expiry that is no number")
        #expect(AgentTokenReply(fields: [Array("t".utf8), [0xFF], []]) == nil, "an expiry that is not UTF-8")
        #expect(AgentTokenReply(fields: [Array("t".utf8)]) == nil, "a field short")
        #expect(AgentTokenReply(fields: [Array("t".utf8), expiry, [], []]) == nil, "a field too many")
        #expect(AgentLoadReply(fields: [Array("s".utf8)]) == nil && AgentPingReply(fields: [[0xFF]]) == nil)
        #expect(AgentEmptyReply(fields: [[]]) == nil && AgentStatusReply(fields: []) == nil)
    }

    @Test func theStatusReportIsReadLeniently() throws {
        let report = AgentStatusReport(
            agent: "vault-agent 1", locked: false,
            accounts: [
                .init(
                    server: "https://id.example.com", account: "ann", kept: true, nextRefreshAt: "2026-11-26T18:30:00Z", lastRefreshAt: nil,
                    lastError: nil, state: "kept")
            ])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: try encoder.encode(report), as: UTF8.self)
        #expect(text.contains(#""last_error":null"#) && text.contains(#""last_refresh_at":null"#), "every key, null included: \(text)")
        #expect(try JSONDecoder().decode(AgentStatusReport.self, from: Data(text.utf8)) == report)
        // Another version's agent: fields missing or of another type read as unknown, not as a failure.
        let other = #"{"agent":"vault-agent 2","accounts":[{"server":"https://h","account":"bob","kept":"yes","state":7}]}"#
        let read = try JSONDecoder().decode(AgentStatusReport.self, from: Data(other.utf8))
        #expect(!read.locked && read.accounts.count == 1 && !read.accounts[0].kept && read.accounts[0].state == nil)
        #expect((try? JSONDecoder().decode(AgentStatusReport.self, from: Data(#"{"agent":"x","accounts":[{"server":"h"}]}"#.utf8))) == nil)
    }
}
