// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

/// `vault login --provider oauth2` against the reference server's RFC 6749 endpoint.
@Suite(.offThePool) struct OAuthCLITests {
    static let clientSecret = "client-secret-c0ffee-do-not-print"

    /// `withAuthFixture` with the OAuth client `vault-cli` and its secret in a 0600 file.
    func withOAuthFixture(accessTTL: Double = 60, _ body: (AuthFixture, String) async throws -> Void) async throws {
        try await withAuthFixture(
            accessTTL: accessTTL, refreshTTL: 120, clients: [CredentialPair(name: "vault-cli", secret: Self.clientSecret)]
        ) { fixture in
            let secretFile = "\(fixture.dir)/client-secret"
            _ = FileManager.default.createFile(
                atPath: secretFile, contents: Data((Self.clientSecret + "\n").utf8), attributes: [.posixPermissions: 0o600])
            try await body(fixture, secretFile)
        }
    }

    func login(
        _ fixture: AuthFixture, secretFile: String, grant: String = "password", auth: String = "basic",
        account: String = "alice", password: String? = nil
    ) async throws -> ProcessResult {
        try await fixture.vault(
            [
                "login", "--server", fixture.url, "--account", account, "--provider", "oauth2",
                "--token-url", fixture.url + "/oauth/token", "--client-id", "vault-cli", "--client-secret-file", secretFile,
                "--grant", grant, "--client-auth", auth,
            ],
            stdin: grant == "password" ? (password ?? fixture.password) : nil)
    }

    func expectNoSecrets(_ result: ProcessResult, _ fixture: AuthFixture, sourceLocation: SourceLocation = #_sourceLocation) {
        fixture.expectNoLeak(result, sourceLocation: sourceLocation)
        #expect(!result.err.contains(Self.clientSecret), sourceLocation: sourceLocation)
        #expect(!result.out.contains(Self.clientSecret), sourceLocation: sourceLocation)
    }

    @Test(arguments: ["basic", "form"])
    func passwordGrantRefreshAndSilentRelogin(clientAuth: String) async throws {
        try await withOAuthFixture(accessTTL: 2) { fixture, secretFile in
            let login = try await login(fixture, secretFile: secretFile, auth: clientAuth)
            #expect(login.status == 0, "\(login.err)")
            expectNoSecrets(login, fixture)
            let first = try await fixture.request(verbose: true)
            #expect(first.status == 0, "\(first.err)")
            #expect(first.out.contains("Ada Lovelace"))
            expectNoSecrets(first, fixture)

            let refreshesBefore = fixture.server.stats.refreshes  // 0, or 1 when a loaded machine made the first request late
            try await Task.sleep(for: .milliseconds(2100))
            let refreshed = try await fixture.request(verbose: true)
            #expect(refreshed.status == 0, "\(refreshed.err)")
            #expect(refreshed.err.contains("refreshed the access token"))
            #expect(fixture.server.stats.refreshes == refreshesBefore + 1)

            _ = fixture.server.revokeRefreshTokens(login: "alice")
            try await Task.sleep(for: .milliseconds(2100))
            let relogged = try await fixture.request(verbose: true)
            #expect(relogged.status == 0, "\(relogged.err)")
            #expect(relogged.err.contains("logged in again"))
            expectNoSecrets(relogged, fixture)
            #expect(fixture.server.stats.logins == 2)
        }
    }

    @Test(
        "a bare 400 or 401 to a refresh is a refused refresh token: one silent login with the stored password",
        arguments: [RefreshFaultMode.emptyStatus400, .emptyStatus401])
    func bareRefusalLeadsToASilentLogin(mode: RefreshFaultMode) async throws {
        try await withOAuthFixture(accessTTL: 2) { fixture, secretFile in
            #expect(try await login(fixture, secretFile: secretFile).status == 0)
            try await Task.sleep(for: .milliseconds(2100))
            fixture.server.faults.set(mode, count: 1)
            let relogged = try await fixture.request(verbose: true)
            #expect(relogged.status == 0, "\(relogged.err)")
            #expect(relogged.err.contains("logged in again"), "\(relogged.err)")
            #expect(fixture.server.stats.faultedRefreshes == 1 && fixture.server.stats.logins == 2)
            expectNoSecrets(relogged, fixture)
        }
    }

    @Test func clientCredentialsGrantNeedsNoPasswordAndRenewsItself() async throws {
        try await withOAuthFixture(accessTTL: 2) { fixture, secretFile in
            let login = try await login(fixture, secretFile: secretFile, grant: "client-credentials", account: "vault-cli")
            #expect(login.status == 0, "\(login.err)")
            let args = ["request", "--server", fixture.url, "--account", "vault-cli", "/api/get_devs", "--verbose"]
            let first = try await fixture.vault(args)
            #expect(first.status == 0, "\(first.err)")
            try await Task.sleep(for: .milliseconds(2100))
            let renewed = try await fixture.vault(args)
            #expect(renewed.status == 0, "\(renewed.err)")
            #expect(renewed.err.contains("logged in again"), "a new client_credentials request")
            expectNoSecrets(renewed, fixture)
            #expect(try await fixture.vault(["list"]).out.isEmpty, "a service account stores no password item")
        }
    }

    @Test func invalidClientExits3WithAConfigurationMessage() async throws {
        try await withOAuthFixture { fixture, _ in
            let wrongFile = "\(fixture.dir)/wrong-secret"
            _ = FileManager.default.createFile(atPath: wrongFile, contents: Data("nope".utf8), attributes: [.posixPermissions: 0o600])
            let login = try await login(fixture, secretFile: wrongFile)
            #expect(login.status == 3)
            #expect(login.err.contains("invalid_client"))
            #expect(login.err.split(separator: "\n").count == 1)
            let list = try await fixture.vault(["list", "--all"])
            #expect(list.status == 0, "\(list.err)")
            #expect(list.out.isEmpty, "nothing stored: \(list.out)")
        }
    }

    @Test func invalidGrantForAWrongPassword() async throws {
        try await withOAuthFixture { fixture, secretFile in
            let login = try await login(fixture, secretFile: secretFile, password: "wrong password")
            #expect(login.status == 3)
            #expect(login.err.contains("invalid_grant"))
            expectNoSecrets(login, fixture)
        }
    }
}
