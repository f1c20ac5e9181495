// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// `vault status`, and the sign-in commands that leave out the server and account when one
/// account is logged in (issue 24).
@Suite(.offThePool) struct StatusCLITests {
    /// The JSON object of `vault status --json`.
    func statusJSON(_ result: ProcessResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    }

    @Test func implicitAccountWithNoneOneAndSeveral() async throws {
        try await withAuthFixture { fixture in
            // None logged in.
            let none = try await fixture.vault(["token"])
            #expect(none.status == 2)
            #expect(none.err == "vault: no account is logged in; run vault login SERVER ACCOUNT first\n", "\(none.err)")

            // One: token, whoami, request and logout need no names.
            #expect(try await fixture.login().status == 0)
            let token = try await fixture.vault(["token"])
            #expect(token.status == 0, "\(token.err)")
            #expect(token.out.hasPrefix("eyJ"))
            let positional = try await fixture.vault(["token", fixture.url, "alice"])
            #expect(positional.status == 0 && positional.out == token.out, "\(positional.err)")
            let whoami = try await fixture.vault(["whoami"])
            #expect(whoami.status == 1, "the reference API has no ID token: \(whoami.err)")
            #expect(whoami.err.contains("alice at \(fixture.url) has no ID token"), "\(whoami.err)")
            #expect(try await fixture.vault(["whoami", fixture.url, "alice"]).status == 1)
            let request = try await fixture.vault(["request", "/api/get_devs"])
            #expect(request.status == 0 && request.out.contains("Ada Lovelace"), "\(request.err)")

            // Several: exit 2, and each is listed.
            #expect(fixture.server.addUser(login: "bob", password: "bob-password-77"))
            #expect(try await fixture.login(account: "bob", password: "bob-password-77").status == 0)
            for command in [["token"], ["whoami"], ["logout"], ["request", "/api/get_devs"]] {
                let several = try await fixture.vault(command)
                #expect(several.status == 2, "\(command): \(several.err)")
                #expect(several.err.hasPrefix("vault: 2 accounts are logged in; name one as SERVER ACCOUNT: "), "\(several.err)")
                #expect(several.err.contains("\(fixture.url) alice") && several.err.contains("\(fixture.url) bob"), "\(several.err)")
                #expect(several.err.split(separator: "\n").count == 1)
            }
            // The one named, or the only one with the account given.
            #expect(try await fixture.vault(["token", fixture.url, "bob"]).status == 0)
            #expect(try await fixture.vault(["token", "--account", "bob"]).status == 0)
            #expect(try await fixture.vault(["request", fixture.url, "bob", "/api/get_devs"]).status == 0)
            let twice = try await fixture.vault(["token", fixture.url, "bob", "--account", "bob"])
            #expect(twice.status == 2)
            #expect(twice.err == "vault: the account is given twice: 'bob' and --account 'bob' (see vault token --help)\n", "\(twice.err)")

            // Logging one out leaves one: the implicit account again.
            #expect(try await fixture.vault(["logout", fixture.url, "bob"]).status == 0)
            let logout = try await fixture.vault(["logout"])
            #expect(logout.status == 0, "\(logout.err)")
            #expect(logout.err.contains("logged out of \(fixture.url) as alice"), "\(logout.err)")
            #expect(try await fixture.vault(["token"]).status == 2)
        }
    }

    @Test func statusOfUsableAccounts() async throws {
        try await withAuthFixture { fixture in
            let nobody = try await fixture.vault(["status"])
            #expect(nobody.status == 1)
            #expect(nobody.err.contains("no account is logged in"))

            #expect(try await fixture.login().status == 0)
            let token = try await fixture.vault(["token"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(!token.isEmpty)
            let status = try await fixture.vault(["status"])
            #expect(status.status == 0, "\(status.err)")
            #expect(status.out.hasPrefix("backend: file"), "\(status.out)")
            #expect(status.out.contains("\(fixture.url) alice: usable"), "\(status.out)")
            #expect(status.out.contains("provider:       reference, grant password"), "\(status.out)")
            #expect(status.out.contains("access token:   valid until "))
            #expect(status.out.contains("refresh token:  kept, valid until "))
            #expect(status.out.contains("password:       stored"))
            let json = try await fixture.vault(["status", "--json"])
            #expect(json.status == 0)
            let object = try statusJSON(json)
            #expect(object["backend"] as? String == "file")
            #expect(object["usable"] as? Bool == true)
            let accounts = try #require(object["accounts"] as? [[String: Any]])
            #expect(accounts.count == 1)
            let alice = try #require(accounts.first)
            #expect(alice["server"] as? String == fixture.url && alice["account"] as? String == "alice")
            #expect(alice["provider"] as? String == "reference" && alice["grant"] as? String == "password")
            #expect(alice["access_token_valid"] as? Bool == true && alice["refresh_token"] as? Bool == true)
            #expect(alice["usable"] as? Bool == true && alice["password_stored"] as? Bool == true)
            #expect(alice["cool_down_until"] is NSNull && alice["signed_in_as"] is NSNull)
            for key in ["access_token_expires_at", "refresh_token_expires_at", "last_refresh_at"] {
                #expect((alice[key] as? String)?.hasSuffix("Z") == true, "\(key)")
            }
            for result in [status, json] {
                #expect(!result.out.contains(token) && !result.err.contains(token), "the access token is never shown")
                fixture.expectNoLeak(result)
                #expect(!containsJWT(result.out))
            }
        }
    }

    @Test func statusExitsOneWhenAnAccountNeedsLogin() async throws {
        try await withAuthFixture(accessTTL: 1, refreshTTL: 2) { fixture in
            #expect(try await fixture.login().status == 0)
            // Without the password, nothing can get a token once both tokens have expired.
            #expect(try await fixture.vault(["remove", fixture.url, "alice"]).status == 0)
            try await fixture.wait(seconds: 3)
            let status = try await fixture.vault(["status"])
            #expect(status.status == 1, "\(status.out)\(status.err)")
            #expect(status.out.contains("\(fixture.url) alice: needs vault login"), "\(status.out)")
            #expect(status.out.contains("access token:   expired"))
            #expect(status.out.contains("password:       not stored"))
            let json = try await fixture.vault(["status", "--json"])
            #expect(json.status == 1)
            let object = try statusJSON(json)
            #expect(object["usable"] as? Bool == false)
            let alice = try #require((object["accounts"] as? [[String: Any]])?.first)
            #expect(alice["usable"] as? Bool == false && alice["access_token_valid"] as? Bool == false)
            fixture.expectNoLeak(json)
        }
    }

    @Test func statusShowsTheCoolDownAfterARejectedPassword() async throws {
        try await withAuthFixture(accessTTL: 1) { fixture in
            #expect(try await fixture.login().status == 0)
            // The refresh token dies and the password changes: the silent login is rejected.
            #expect(fixture.server.revokeRefreshTokens(login: "alice") != nil)
            #expect(fixture.server.setPassword(login: "alice", password: "changed-elsewhere-1"))
            try await fixture.wait(seconds: 1.5)
            #expect(try await fixture.vault(["token"]).status == 3)
            let status = try await fixture.vault(["status"])
            #expect(status.status == 1, "\(status.out)\(status.err)")
            #expect(status.out.contains("cool-down:      the stored credentials were rejected"), "\(status.out)")
            let alice = try #require((try statusJSON(try await fixture.vault(["status", "--json"]))["accounts"] as? [[String: Any]])?.first)
            #expect(alice["cool_down_until"] is String)
            #expect(alice["usable"] as? Bool == false)
        }
    }
}
