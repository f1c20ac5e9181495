// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultAgentProtocol
import VaultTestSupport

@Suite(.offThePool) struct WireFormatTests {
    static let requests: [AgentRequest] = [
        .ping, .lock, .status(store: "file:/home/a/vault"), .rekeyed(store: "file:/home/a/vault"),
        .changed(store: "file:/home/a/vault", server: "https://auth.example.com", account: "ann"),
        .load(store: "s", server: "https://h", account: "ann"),
        .token(store: "s", server: "https://h", account: "ann", rejected: nil),
        .token(store: "s", server: "https://h", account: "ann", rejected: Array("old".utf8)),
    ]

    @Test(arguments: requests) func requestsSurviveTheRoundTrip(_ request: AgentRequest) {
        #expect(AgentRequest.decode(request.encoded()) == request)
    }

    @Test func answersSurviveTheRoundTrip() {
        for answer: AgentAnswer in [.done([]), .done([Array("tok".utf8), Array("17".utf8)]), .declined(reason: "locked")] {
            #expect(AgentAnswer.decode(answer.encoded()) == answer)
        }
    }

    @Test func malformedPayloadsAreRefusedWhole() {
        let good = AgentRequest.load(store: "s", server: "h", account: "a").encoded()
        #expect(AgentRequest.decode([]) == nil)
        #expect(AgentRequest.decode([2] + good.dropFirst()) == nil, "another version")
        #expect(AgentRequest.decode([1, 99]) == nil, "an unknown operation")
        #expect(AgentRequest.decode(good.dropLast()) == nil, "a field cut short")
        #expect(AgentRequest.decode(good + [0]) == nil, "bytes after the last field")
        #expect(AgentRequest.decode(AgentRequest.ping.encoded() + [0, 0, 0, 0]) == nil, "a field too many")
        #expect(AgentRequest.decode([1, 3, 0, 0, 0, 1, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0]) == nil, "a name that is not UTF-8")
        #expect(AgentAnswer.decode([1, 1]) == nil, "declined without a reason")
    }

    @Test func framesCarryTheirLength() {
        let frame = AgentFrame.framed([1, 2, 3])
        #expect(frame == [0, 0, 0, 3, 1, 2, 3])
        #expect(AgentFrame.announcedLength(frame) == 3)
        #expect(AgentFrame.announcedLength([0, 0, 1]) == nil)
    }
}
