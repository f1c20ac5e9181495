// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultAuth
import VaultTestSupport

@testable import VaultCLI

/// `vault whoami --json` and `vault status` on what a provider may put in a token: the
/// output is the payload as vault verified it (attack review 60).
@Suite("whoami --json and status: the claims as verified, any expiry", .offThePool)
struct WhoamiJSONTests {
    @Test("a claim given twice shows as verified (the first); numbers, booleans, null, arrays and objects as given")
    func claimsAsVerified() throws {
        let payload =
            #"{"sub":"user-1","iss":"https://id.example","aud":"cli","groups":["a",2],"exp":1767225600,"#
            + #""iat":1.5,"ok":true,"none":null,"deep":{"a":[{"b":"é"}]},"sub":"admin","pending_profile":"forged"}"#
        let text = WhoamiCommand.json(claims: Array(payload.utf8), pending: nil)
        #expect(
            text
                == #"{"aud":"cli","deep":{"a":[{"b":"\u00e9"}]},"exp":1767225600,"groups":["a",2],"iat":1.5,"#
                + #""iss":"https://id.example","none":null,"ok":true,"sub":"user-1"}"#
        )
        let claims = try #require(IDTokenClaims(payload: Array(payload.utf8)))
        #expect(claims.subject == "user-1", "the claims vault verified are the first copies too")
    }

    @Test("a pending profile replaces any claim of its name")
    func pendingProfile() {
        let text = WhoamiCommand.json(
            claims: Array(#"{"sub":"s","pending_profile":{"name":"forged"}}"#.utf8), pending: PendingProfile(name: "Ann", email: nil))
        #expect(text == #"{"pending_profile":{"name":"Ann"},"sub":"s"}"#)
    }

    @Test("status words an expiry of any size without trapping")
    func farExpiry() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let report = StatusReport(statuses: [], now: now, coolDown: 0)
        #expect(report.relative(now.addingTimeInterval(90)) == "in 90s")
        #expect(report.relative(now.addingTimeInterval(-7300)) == "2h ago")
        #expect(report.relative(Date(timeIntervalSince1970: 1e297)).hasPrefix("in "))
        #expect(report.relative(Date(timeIntervalSince1970: -1e297)).hasSuffix(" ago"))
    }
}
