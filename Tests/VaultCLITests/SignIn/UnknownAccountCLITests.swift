// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// Issue 38 §5.1: a mistyped or unknown account is "no account X on S", with the nearest
/// accounts logged in there, exit 1 (not found) as the store commands say; `logout` of one
/// says so instead of succeeding; `logout` says that the password item stays.
@Suite("An unknown account: not found, with the nearest ones", .offThePool)
struct UnknownAccountCLITests {
    @Test("token, request, whoami, exec --token and logout of a typo: exit 1, did you mean the account logged in there")
    func typo() async throws {
        try await withAuthFixture { fixture in
            #expect(try await fixture.login().status == 0)
            let url = fixture.url
            let line = "vault: no account \"alise\" on \(url); did you mean \"alice\"?\n"
            for arguments in [
                ["token", url, "alise"], ["request", url, "alise", "/api/get_devs"], ["whoami", url, "alise"],
                ["exec", "--token", "T=alise@\(url)", "--", "/bin/true"], ["logout", url, "alise"],
            ] {
                let result = try await fixture.vault(arguments)
                #expect(result.status == 1 && result.err == line, "\(arguments): \(result.status) \(result.err)")
                #expect(result.out.isEmpty)
            }
            let forget = try await fixture.vault(["logout", url, "alise", "--forget-password"])
            #expect(forget.status == 1 && forget.err == line, "attack review 55b: \(forget.err)")
            // Nothing of alice was touched.
            #expect(try await fixture.vault(["token", url, "alice"]).status == 0)
        }
    }

    @Test("an account nowhere near: the accounts logged in there; on a server with none: that none is (no login to paste)")
    func farAndNone() async throws {
        try await withAuthFixture { fixture in
            #expect(try await fixture.login().status == 0)
            let far = try await fixture.vault(["token", fixture.url, "zebedee"])
            #expect(far.status == 1 && far.err == "vault: no account \"zebedee\" on \(fixture.url) (logged in there: \"alice\")\n", "\(far.err)")
            let other = "http://127.0.0.1:9"
            let none = try await fixture.vault(["token", other, "alice"])
            #expect(
                none.status == 1 && none.err == "vault: no account \"alice\" on \(other) (no account is logged in there)\n", "\(none.err)")
        }
    }

    @Test("logout says the password item stays, and how to remove it; with --forget-password it goes, and nothing is said of it")
    func logoutAndThePassword() async throws {
        try await withAuthFixture { fixture in
            #expect(try await fixture.login().status == 0)
            let logout = try await fixture.vault(["logout", fixture.url, "alice"])
            #expect(logout.status == 0, "\(logout.err)")
            #expect(logout.err.hasSuffix("; the password item stays (--forget-password removes it)\n"), "\(logout.err)")
            // A second logout is no error: the password is still there (attack review 55b).
            let again = try await fixture.vault(["logout", fixture.url, "alice"])
            #expect(
                again.status == 0
                    && again.err == "vault: logged out of \(fixture.url) as alice (no tokens were kept); the password item stays "
                        + "(--forget-password removes it)\n",
                "\(again.err)")
            #expect(try await fixture.vault(["load", "--server", fixture.url, "--account", "alice"]).status == 0)
            #expect(try await fixture.vault(["login", fixture.url, "alice"], stdin: fixture.password).status == 0)
            let forget = try await fixture.vault(["logout", fixture.url, "alice", "--forget-password"])
            #expect(forget.status == 0 && !forget.err.contains("password"), "\(forget.err)")
            #expect(try await fixture.vault(["load", "--server", fixture.url, "--account", "alice"]).status == 1)
        }
    }
}
