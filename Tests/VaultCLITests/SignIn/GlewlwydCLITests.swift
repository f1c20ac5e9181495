// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultTestSupport

/// A Glewlwyd started for one test by `Tests/Helpers/glewlwyd-start`: an OpenID Connect
/// provider nobody here wrote (Debian's glewlwyd 2.7.5), and the settings it printed.
struct GlewlwydProvider: Sendable {
    /// Its settings (`DIR/env.json`): `GLEWLWYD_BASE`, `OIDC_ISSUER`, `REDIRECT_URI`, the clients' ids and secrets.
    let settings: [String: String]
    /// Where it keeps its files, and `stop.sh`.
    let dir: String

    var base: String { settings["GLEWLWYD_BASE"] ?? "" }
    var issuer: String { settings["OIDC_ISSUER"] ?? "" }
    var redirectURI: String { settings["REDIRECT_URI"] ?? "" }
    var api: String { settings["GLEWLWYD_API"] ?? "" }

    static let startScript: String = {
        PackageRoot.appending("Tests/Helpers/glewlwyd-start")
    }()

    /// Whether Debian's glewlwyd is installed (Scripts/bootstrap installs it); `Scripts/test`
    /// sets `VAULT_REQUIRE_GLEWLWYD=1`, so that there a missing one fails instead.
    static let isAvailable =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/glewlwyd") || ProcessInfo.processInfo.environment["VAULT_REQUIRE_GLEWLWYD"] == "1"

    /// The environment of a vault child whose browser (`Tests/Helpers/test-browser`) signs in to this Glewlwyd as alice.
    func browserEnvironment(log: String) -> [String: String] {
        [
            "BROWSER": SignInFixture.browserPath, "TEST_BROWSER_LOG": log, "TEST_BROWSER_LOGIN": settings["USER_NAME"] ?? "",
            "TEST_BROWSER_PASSWORD": settings["USER_PASSWORD"] ?? "", "TEST_BROWSER_GLEWLWYD": api,
        ]
    }
}

/// Runs `body` with a Glewlwyd whose access tokens live `accessTTL` seconds and a vault
/// environment (``AuthFixture``, whose reference server is not used); stops it after.
func withGlewlwyd(accessTTL: Int = 3600, _ body: (GlewlwydProvider, AuthFixture) async throws -> Void) async throws {
    try await withAuthFixture { fixture in
        let dir = "\(fixture.dir)/glewlwyd"
        var environment = ProcessInfo.processInfo.environment
        environment["GLEWLWYD_ACCESS_TTL"] = String(accessTTL)
        let started = try await ChildProcess.runAsync(GlewlwydProvider.startScript, [dir], environment: environment, timeout: 120)
        var failure: (any Error)?
        do {
            try #require(started.status == 0, "glewlwyd-start failed: \(started.err)")
            let data = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/env.json"))
            let settings = try JSONDecoder().decode([String: String].self, from: data)
            try await body(GlewlwydProvider(settings: settings, dir: dir), fixture)
        } catch {
            failure = error
        }
        // Stopped whatever the test did, waiting without holding a thread of the pool.
        _ = try? await ChildProcess.runAsync("\(dir)/stop.sh", [], timeout: 30)
        if let failure { throw failure }
    }
}

/// vault against Glewlwyd, an independently written OpenID Connect provider with its own
/// reading of the specs (docs/providers.md lists what it does differently): the browser
/// sign-in at the one redirect URI it accepts, ID tokens it signs with RS256, refresh
/// tokens it rotates and answers with an empty 400 once dead, and a revocation endpoint
/// that refuses public clients.
@Suite("vault against Glewlwyd, a provider nobody here wrote", .enabled(if: GlewlwydProvider.isAvailable, "glewlwyd is not installed"), .offThePool)
struct GlewlwydCLITests {
    /// `vault login` through the browser at Glewlwyd's registered redirect URI.
    func login(_ glewlwyd: GlewlwydProvider, _ fixture: AuthFixture, extra: [String]? = nil) async throws -> ProcessResult {
        try await fixture.vault(
            ["login", glewlwyd.base, "alice", "--provider", "oidc", "--issuer", glewlwyd.issuer, "--client-id", "vault-cli"]
                + (extra ?? ["--redirect-uri", glewlwyd.redirectURI]),
            env: glewlwyd.browserEnvironment(log: "\(fixture.dir)/browser.log"))
    }

    /// The refresh token vault stored for alice.
    func storedRefreshToken(_ glewlwyd: GlewlwydProvider, _ fixture: AuthFixture) throws -> String? {
        let store = EncryptedFileStore(path: "\(fixture.dir)/vault/vault.db", passphrase: .fixed(Secret("fixture passphrase")))
        guard let item = try store.load(CredentialKey(server: glewlwyd.base, account: "alice", kind: .tokens)) else { return nil }
        let object = (try? JSONSerialization.jsonObject(with: Data(item.secret.bytes))) as? [String: Any]
        return object?["refreshToken"] as? String
    }

    @Test("browser sign-in at the registered --redirect-uri, RS256 ID token verified, userinfo, refresh with rotation")
    func browserSignInAndRotation() async throws {
        try await withGlewlwyd(accessTTL: 4) { glewlwyd, fixture in
            let login = try await login(glewlwyd, fixture)
            #expect(login.status == 0, "\(login.err)")
            #expect(login.err.contains("logged in to \(glewlwyd.base) as alice (signed in:"), "\(login.err)")
            let whoami = try await fixture.vault(["whoami", glewlwyd.base, "alice", "--json"])
            #expect(whoami.status == 0 && whoami.out.contains("Alice Liddell"), "\(whoami.out) \(whoami.err)")
            let first = try #require(try storedRefreshToken(glewlwyd, fixture))
            try await Task.sleep(for: .milliseconds(4100))  // the access token has expired
            let userinfo = try await fixture.vault(["request", glewlwyd.base, "alice", "/api/oidc/userinfo", "--verbose"])
            #expect(userinfo.status == 0 && userinfo.out.contains("alice@example.com"), "\(userinfo.out) \(userinfo.err)")
            #expect(userinfo.err.contains("refreshed the access token"), "\(userinfo.err)")
            let second = try #require(try storedRefreshToken(glewlwyd, fixture))
            #expect(second != first, "Glewlwyd rotates refresh tokens, and vault keeps the new one")
            fixture.expectNoLeak(login)
            fixture.expectNoLeak(userinfo)
        }
    }

    @Test("without --redirect-uri (a random port) Glewlwyd refuses the sign-in: it compares redirect URIs as strings")
    func randomPortIsRefused() async throws {
        try await withGlewlwyd { glewlwyd, fixture in
            let login = try await login(glewlwyd, fixture, extra: ["--timeout", "3"])
            #expect(login.status == 3, "\(login.err)")
            // What went wrong is named: the browser left for the provider and never came back.
            let port = try #require(login.err.firstMatch(of: #/http:\/\/127\.0\.0\.1:([0-9]+)\/start\//#)?.1)
            #expect(
                login.err.hasSuffix(
                    "vault: authentication failed: no sign-in arrived within 3 seconds: the browser went to the provider and never came back "
                        + "to http://127.0.0.1:\(port)/callback; if the provider showed an error, check --client-id, and give the redirect "
                        + "URI registered with it (--redirect-uri)\n"), "\(login.err)")
            let log = (try? String(contentsOfFile: "\(fixture.dir)/browser.log", encoding: .utf8)) ?? ""
            #expect(log.contains(#""step": "consent", "status": 403"#), "Glewlwyd's answer to another port: \(log)")
        }
    }

    @Test("a refresh token rotated away gets an empty 400: the session has ended; the hint's vault login signs in again as before")
    func deadRefreshTokenEndsTheSession() async throws {
        try await withGlewlwyd(accessTTL: 4) { glewlwyd, fixture in
            #expect(try await login(glewlwyd, fixture).status == 0)
            // Another client of the same session uses the refresh token first: vault's is rotated away.
            let token = try #require(try storedRefreshToken(glewlwyd, fixture))
            let stolen = try await ChildProcess.runAsync(
                "/usr/bin/curl",
                [
                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "--data-urlencode", "refresh_token@-", "-d", "grant_type=refresh_token",
                    "-d", "client_id=vault-cli", glewlwyd.issuer + "/token",
                ],
                stdin: Data(token.utf8), timeout: 30)
            #expect(stolen.out == "200", "\(stolen.out) \(stolen.err)")
            try await Task.sleep(for: .milliseconds(4100))
            let request = try await fixture.vault(["request", glewlwyd.base, "alice", "/api/oidc/userinfo"])
            #expect(request.status == 3, "\(request.err)")
            #expect(
                request.err.contains(
                    "the session has ended; run vault login \(glewlwyd.base) alice "
                        + "(the token endpoint refused the refresh token (HTTP 400, no error code))"),
                "\(request.err)")
            let status = try await fixture.vault(["status"])
            #expect(status.out.contains("\(glewlwyd.base) alice: needs vault login"), "\(status.out)")
            #expect(try storedRefreshToken(glewlwyd, fixture) == nil, "the dead refresh token is forgotten")
            // Back in with the hint's command: the provider, issuer, client and the one
            // redirect URI Glewlwyd accepts are the kept ones.
            let again = try await fixture.vault(
                ["login", glewlwyd.base, "alice"], env: glewlwyd.browserEnvironment(log: "\(fixture.dir)/browser-again.log"))
            #expect(again.status == 0, "\(again.err)")
            #expect(
                again.err.contains(
                    "signing in with the kept options: --provider oidc --issuer \(glewlwyd.issuer) --client-id vault-cli "
                        + "--redirect-uri \(glewlwyd.redirectURI)\n"), "\(again.err)")
            let userinfo = try await fixture.vault(["request", glewlwyd.base, "alice", "/api/oidc/userinfo"])
            #expect(userinfo.status == 0 && userinfo.out.contains("alice@example.com"), "\(userinfo.out) \(userinfo.err)")
        }
    }

    @Test("the device grant: the code is shown, the person approves on Glewlwyd's device page, vault polls at its interval")
    func deviceGrant() async throws {
        try await withGlewlwyd { glewlwyd, fixture in
            let login = try ChildProcess(
                VaultProcess.vaultPath,
                ["login", glewlwyd.base, "alice", "--provider", "oidc", "--issuer", glewlwyd.issuer, "--client-id", "vault-cli", "--device"],
                environment: fixture.env, stderr: .intoStdout)
            let shown = try #require(
                try await login.waitForOutput(timeout: 60) { $0.firstMatch(of: #/enter the code (\S+)/#) != nil && $0.contains("waiting for") },
                "\(login.output)")
            let code = String(try #require(shown.firstMatch(of: #/enter the code (\S+)/#)).1)
            // The other device: alice logs in to Glewlwyd and opens its device page with the code.
            var browser = glewlwyd.browserEnvironment(log: "\(fixture.dir)/device.log")
            browser["TEST_BROWSER_MODE"] = "glewlwyd-device"
            let approve = try await ChildProcess.runAsync(
                SignInFixture.browserPath, ["\(glewlwyd.settings["OIDC_DEVICE_VERIFY"] ?? "")?code=\(code)"],
                environment: ProcessInfo.processInfo.environment.merging(browser) { $1 }, timeout: 60)
            #expect(approve.status == 0, "\(approve.err)")
            let result = try await login.finishAsync(timeout: 120)
            let steps = (try? String(contentsOfFile: "\(fixture.dir)/device.log", encoding: .utf8)) ?? ""
            #expect(result.status == 0, "\(result.out)\n\(steps)")
            #expect(result.out.contains("logged in to \(glewlwyd.base) as alice (signed in:"), "\(result.out)")
            let userinfo = try await fixture.vault(["request", glewlwyd.base, "alice", "/api/oidc/userinfo"])
            #expect(userinfo.status == 0 && userinfo.out.contains("alice@example.com"), "\(userinfo.out) \(userinfo.err)")
            fixture.expectNoLeak(result)
        }
    }

    @Test("logout: Glewlwyd refuses a public client's revocation (401): one line, exit 5, the local tokens gone")
    func refusedRevocation() async throws {
        try await withGlewlwyd { glewlwyd, fixture in
            #expect(try await login(glewlwyd, fixture).status == 0)
            let logout = try await fixture.vault(["logout", glewlwyd.base, "alice"])
            #expect(logout.status == 5, "\(logout.err)")
            #expect(
                logout.err
                    == "vault: logged out of \(glewlwyd.base) as alice here, but the provider refused to revoke the token (HTTP 401); "
                    + "the tokens stay valid there until they expire\n", "\(logout.err)")
            #expect(try storedRefreshToken(glewlwyd, fixture) == nil)
        }
    }

    @Test("the client_credentials grant of a confidential client (HTTP Basic), and the password grant with rotation")
    func confidentialClients() async throws {
        try await withGlewlwyd { glewlwyd, fixture in
            let secretFile = "\(fixture.dir)/svc-secret"
            _ = FileManager.default.createFile(
                atPath: secretFile, contents: Data((glewlwyd.settings["SVC_CLIENT_SECRET"] ?? "").utf8), attributes: [.posixPermissions: 0o600])
            let service = try await fixture.vault([
                "login", glewlwyd.base, "vault-svc", "--provider", "oauth2", "--token-url", glewlwyd.issuer + "/token", "--client-id",
                "vault-svc", "--client-secret-file", secretFile, "--grant", "client-credentials", "--scope", "vault.admin",
            ])
            #expect(service.status == 0, "\(service.err)")
            let token = try await fixture.vault(["token", glewlwyd.base, "vault-svc"])
            #expect(token.status == 0 && token.out.hasPrefix("eyJ"), "\(token.err)")

            let ropcFile = "\(fixture.dir)/ropc-secret"
            _ = FileManager.default.createFile(
                atPath: ropcFile, contents: Data((glewlwyd.settings["ROPC_CLIENT_SECRET"] ?? "").utf8), attributes: [.posixPermissions: 0o600])
            let password = try await fixture.vault(
                [
                    "login", glewlwyd.base, "alice", "--provider", "oauth2", "--token-url", glewlwyd.issuer + "/token", "--client-id",
                    "vault-ropc", "--client-secret-file", ropcFile, "--grant", "password", "--scope", "openid",
                ], stdin: glewlwyd.settings["USER_PASSWORD"])
            #expect(password.status == 0, "\(password.err)")
            let userinfo = try await fixture.vault(["request", glewlwyd.base, "alice", "/api/oidc/userinfo"])
            #expect(userinfo.status == 0 && userinfo.out.contains("Alice Liddell"), "\(userinfo.out) \(userinfo.err)")
            #expect(!service.err.contains(glewlwyd.settings["SVC_CLIENT_SECRET"] ?? "-"))
        }
    }
}
