// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultStore
import VaultTestSupport

/// A reference server with the public client `cli` (PKCE, device grant) and test controls,
/// a file-backend vault environment, and `Tests/Helpers/test-browser` as `$BROWSER`.
struct SignInFixture: Sendable {
    static let client = "cli"
    let auth: AuthFixture
    var url: String { auth.url }
    var server: ReferenceAuthServer { auth.server }
    var browserLog: String { "\(auth.dir)/browser.log" }

    static let browserPath: String = {
        PackageRoot.appending("Tests/Helpers/test-browser")
    }()

    /// The environment of a vault child whose browser is the test helper in `mode`.
    func browserEnvironment(mode: String = "normal", decision: String = "allow") -> [String: String] {
        [
            "BROWSER": Self.browserPath, "TEST_BROWSER_LOG": browserLog, "TEST_BROWSER_LOGIN": "alice",
            "TEST_BROWSER_PASSWORD": AuthFixture.password, "TEST_BROWSER_DECISION": decision, "TEST_BROWSER_MODE": mode,
        ]
    }

    /// `vault login --provider oidc` through the helper browser.
    func login(mode: String = "normal", decision: String = "allow", extra: [String] = []) async throws -> ProcessResult {
        try await auth.vault(
            ["login", "--server", url, "--account", "alice", "--provider", "oidc", "--issuer", url, "--client-id", Self.client]
                + extra, env: browserEnvironment(mode: mode, decision: decision))
    }

    /// The helper's steps, one JSON object each.
    func browserSteps() -> [[String: Any]] {
        let text = (try? String(contentsOfFile: browserLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    func step(_ name: String) -> [String: Any]? { browserSteps().first { $0["step"] as? String == name } }

    /// Waits (bounded) until the helper logged `done`.
    func waitForBrowser() async throws {
        try await auth.wait(seconds: 20) { step("done") != nil }
    }

    /// The tokens vault stored for alice, read with the library.
    func storedTokens() throws -> [String: Any]? {
        let store = EncryptedFileStore(path: "\(auth.dir)/vault/vault.db", passphrase: .fixed(Secret("fixture passphrase")))
        let key = CredentialKey(server: url, account: "alice", kind: .tokens)
        guard let item = try store.load(key) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(item.secret.bytes))) as? [String: Any]
    }

    /// The login settings vault stored for alice, read with the library.
    func storedSettings() throws -> [String: Any]? {
        let store = EncryptedFileStore(path: "\(auth.dir)/vault/vault.db", passphrase: .fixed(Secret("fixture passphrase")))
        guard let item = try store.load(CredentialKey(server: url, account: "alice", kind: .settings)) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(item.secret.bytes))) as? [String: Any]
    }

    /// No token, code or password on either stream.
    func expectNoSecrets(_ result: ProcessResult, sourceLocation: SourceLocation = #_sourceLocation) {
        auth.expectNoLeak(result, sourceLocation: sourceLocation)
        if let code = step("consent")?["code"] as? String {
            #expect(!result.err.contains(code) && !result.out.contains(code), "the code leaked", sourceLocation: sourceLocation)
        }
        #expect(!result.err.contains("code_verifier"), sourceLocation: sourceLocation)
    }
}

func withSignInFixture(
    accessTTL: Double = 60, deviceInterval: Double = 1, deviceLifetime: Double = 60, pendingAfterExpiry: Bool = false,
    otherUsers: [CredentialPair] = [], _ body: (SignInFixture) async throws -> Void
) async throws {
    var configuration = AuthServerConfiguration(
        accessTokenLifetime: accessTTL, refreshTokenLifetime: 300,
        users: [CredentialPair(name: "alice", secret: AuthFixture.password)] + otherUsers)
    configuration.publicClients = [SignInFixture.client]
    configuration.testControls = true
    configuration.deviceInterval = deviceInterval
    configuration.deviceCodeLifetime = deviceLifetime
    configuration.devicePendingAfterExpiry = pendingAfterExpiry
    try await withReferenceServer(configuration) { running in
        try await withTemporaryDirectory("vault-signin") { dir in
            try await body(SignInFixture(auth: AuthFixture(server: running.server, url: running.url, dir: dir)))
        }
    }
}

@Suite("vault login through the browser: authorization code + PKCE, OpenID Connect", .offThePool)
struct BrowserSignInCLITests {
    @Test("a full sign-in: discovery, PKCE, verified ID token, whoami, requests, refresh with rotation, logout that revokes")
    func fullSignIn() async throws {
        try await withSignInFixture(accessTTL: 2) { fixture in
            let login = try await fixture.login()
            #expect(login.status == 0, "\(login.err)")
            let link = try #require(login.err.firstMatch(of: #/  (http://127\.0\.0\.1:[0-9]+/start/[A-Za-z0-9_-]{43})\n/#))
            #expect(fixture.step("opened")?["url"] as? String == String(link.1), "the link printed for opening by hand is the browser's")
            #expect(!login.err.contains("/oauth/authorize") && !login.err.contains("state="), "the authorization URL is not printed")
            let start = try #require(fixture.step("start"))
            #expect(start["status"] as? Int == 302)
            let cookie = try #require(start["set_cookie"] as? String)
            #expect(cookie.hasPrefix("vault_signin_") && cookie.contains("; HttpOnly") && cookie.contains("; SameSite=Lax"))
            #expect(cookie.contains("; Path=/"))
            let authorize = try #require(fixture.step("authorize")?["url"] as? String)
            #expect(authorize.contains("/oauth/authorize?") && authorize.contains("code_challenge_method=S256") && authorize.contains("nonce="))
            #expect(login.err.contains("signed in: alice@vault.invalid (sub 1)"), "\(login.err)")
            try await fixture.waitForBrowser()
            let landing = try #require(fixture.step("redirect"))
            #expect(landing["status"] as? Int == 200)
            #expect((landing["body"] as? String)?.contains("You can close this tab") == true)
            fixture.expectNoSecrets(login)
            let stats = fixture.server.stats
            #expect(stats.codeExchanges == 1 && stats.idTokens == 1 && stats.jwksFetches == 1)

            let whoami = try await fixture.auth.vault(["whoami", "--server", fixture.url, "--account", "alice"])
            #expect(whoami.status == 0, "\(whoami.err)")
            #expect(whoami.out.contains("sub: 1\n") && whoami.out.contains("email: alice@vault.invalid\n"))
            #expect(whoami.out.contains("iss: \(fixture.url)\n") && whoami.out.contains("aud: cli\n"))
            let json = try await fixture.auth.vault(["whoami", "--server", fixture.url, "--account", "alice", "--json"])
            let claims = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
            #expect(claims["sub"] as? String == "1" && claims["aud"] as? String == "cli" && claims["nonce"] != nil)

            let first = try await fixture.auth.request()
            #expect(first.status == 0 && first.out.contains("Ada Lovelace"), "\(first.err)")
            let before = try #require(try fixture.storedTokens())
            let refreshesBefore = fixture.server.stats.refreshes  // 0, or 1 when a loaded machine made the first request late
            try await Task.sleep(for: .milliseconds(2100))
            let refreshed = try await fixture.auth.request(verbose: true)
            #expect(refreshed.status == 0, "\(refreshed.err)")
            #expect(refreshed.err.contains("refreshed the access token"))
            fixture.expectNoSecrets(refreshed)
            let after = try #require(try fixture.storedTokens())
            #expect(after["refreshToken"] as? String != before["refreshToken"] as? String, "rotation is persisted")
            #expect(after["idToken"] as? String != nil, "the refresh's ID token was verified (Core §12.2) and kept")
            #expect(fixture.server.stats.refreshes == refreshesBefore + 1)

            let logout = try await fixture.auth.vault(["logout", "--server", fixture.url, "--account", "alice"])
            #expect(logout.status == 0, "\(logout.err)")
            #expect(fixture.server.stats.revocations == 2, "the refresh token, then the access token")
            #expect(try fixture.storedTokens() == nil)
            let oldRefresh = try #require(after["refreshToken"] as? String)
            let refused = try await OAuthProbe(base: fixture.url).refresh(oldRefresh, clientID: SignInFixture.client)
            #expect(refused.status == 400 && refused.body.contains("invalid_grant"), "the server refuses the revoked token")
            let gone = try await fixture.auth.request()
            #expect(gone.status == 1 && gone.err.contains("no account \"alice\" on \(fixture.url)"), "\(gone.err)")
        }
    }

    @Test(
        "a forged redirect (wrong state, another path, another Host) gets an error page and is ignored; the real one signs in",
        arguments: ["wrong-state", "other-path", "wrong-host"])
    func forgedRedirectsAreIgnored(mode: String) async throws {
        try await withSignInFixture { fixture in
            let login = try await fixture.login(mode: mode)
            #expect(login.status == 0, "\(login.err)")
            try await fixture.waitForBrowser()
            let forged = try #require(fixture.step("forged"))
            #expect([400, 404].contains(forged["status"] as? Int ?? 0), "\(forged)")
            #expect((forged["body"] as? String)?.contains("Signed in") == false)
            #expect(fixture.step("redirect")?["status"] as? Int == 200)
            #expect(fixture.server.stats.codeExchanges == 1)
            fixture.expectNoSecrets(login)
        }
    }

    @Test("a second redirect after the first is not accepted: the listener is closed, or answers with an error page")
    func secondRedirectIsRefused() async throws {
        try await withSignInFixture { fixture in
            let login = try await fixture.login(mode: "twice")
            #expect(login.status == 0, "\(login.err)")
            try await fixture.waitForBrowser()
            let again = try #require(fixture.step("again"))
            #expect(again["status"] as? Int != 200, "\(again)")
            #expect(fixture.server.stats.codeExchanges == 1)
        }
    }

    @Test("--provider oidc --scope profile still asks for openid, sends a nonce and verifies the ID token that carries it")
    func openIDScopeIsAlwaysThere() async throws {
        try await withSignInFixture { fixture in
            let login = try await fixture.login(extra: ["--scope", "profile"])
            #expect(login.status == 0, "\(login.err)")
            #expect(login.err.contains("signed in: alice@vault.invalid (sub 1)"), "\(login.err)")
            let authorize = try #require(fixture.step("authorize")?["url"] as? String ?? fixture.step("opened")?["url"] as? String)
            let query = Dictionary(
                (URLComponents(string: authorize)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
            #expect(query["scope"]?.split(separator: " ").sorted() == ["openid", "profile"], "\(authorize)")
            #expect(query["nonce"]?.count == 43, "\(authorize)")
            #expect(fixture.server.stats.idTokens == 1)
            let claims = try await fixture.auth.vault(["whoami", "--server", fixture.url, "--account", "alice", "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(claims.out.utf8)) as? [String: Any], "\(claims.err)")
            #expect(object["nonce"] as? String == query["nonce"], "the ID token carries the nonce that was sent")
            fixture.expectNoSecrets(login)
        }
    }

    @Test("Deny: exit 3 with the provider's error and description, shown safely; nothing stored")
    func deniedSignIn() async throws {
        try await withSignInFixture { fixture in
            let login = try await fixture.login(decision: "deny")
            #expect(login.status == 3, "\(login.err)")
            #expect(login.err.contains("access_denied") && login.err.contains("the user denied the request"), "\(login.err)")
            try await fixture.waitForBrowser()
            #expect((fixture.step("redirect")?["body"] as? String)?.contains("Sign-in not completed") == true, "\(fixture.browserSteps())")
            #expect(try fixture.storedTokens() == nil)
            #expect(fixture.server.stats.codeExchanges == 0)
        }
    }

    @Test("on a terminal, a line every 30 s says the browser sign-in is still awaited, and how long is left")
    func remindersOnATerminal() async throws {
        try await withSignInFixture { fixture in
            // stderr is a pty; the browser does nothing; 33 s leave room for one reminder.
            var environment = fixture.auth.env.merging(fixture.browserEnvironment(mode: "ignore")) { $1 }
            environment["TERM"] = "dumb"
            let result = try await StderrOnATerminal.run(
                VaultProcess.vaultPath,
                [
                    "login", fixture.url, "alice", "--provider", "oidc", "--issuer", fixture.url, "--client-id", SignInFixture.client,
                    "--timeout", "33",
                ], environment: environment)
            let reminders = result.lines.filter { $0.hasPrefix("vault: still waiting for the sign-in in the browser (") }
            #expect(reminders.count == 1, "\(result.lines)")
            #expect(reminders.first?.hasSuffix(" seconds left; Ctrl-C stops)") == true, "\(reminders)")
            #expect(result.status == 3, "\(result.lines)")
        }
    }

    @Test("nobody signs in: exit 3 after --timeout, and nothing listens on the redirect port afterwards")
    func timeoutClosesTheListener() async throws {
        try await withSignInFixture { fixture in
            let login = try await fixture.login(mode: "ignore", extra: ["--timeout", "1.5"])
            #expect(login.status == 3, "\(login.err)")
            #expect(login.err.contains("(vault waits 1.5 seconds for the sign-in to come back; --timeout changes that, Ctrl-C stops):\n"))
            #expect(
                login.err.hasSuffix(
                    "vault: authentication failed: no sign-in arrived within 1.5 seconds: the sign-in link was never opened; "
                        + "run vault login again\n"),
                "\(login.err)")
            #expect(!login.err.contains("still waiting"), "no reminders into a pipe: \(login.err)")
            let link = try #require(login.err.firstMatch(of: #/http:\/\/127\.0\.0\.1:([0-9]+)\/start\//#))
            let port = try #require(Int(link.1))
            #expect(!RawSocket.accepts(port), "the listener is gone")
            #expect(try fixture.storedTokens() == nil)
        }
    }

    @Test(
        "an ID token that fails a check is refused: exit 3, nothing stored",
        arguments: [
            IDTokenFault.badSignature, .wrongAudience, .wrongIssuer, .expired, .issuedInFuture, .wrongNonce, .unpublishedKey,
        ])
    func refusedIDTokens(fault: IDTokenFault) async throws {
        try await withSignInFixture { fixture in
            fixture.server.setIDTokenFault(fault)
            let login = try await fixture.login()
            #expect(login.status == 3, "\(login.err)")
            #expect(login.err.contains("the ID token was refused"), "\(login.err)")
            #expect(try fixture.storedTokens() == nil)
            fixture.expectNoSecrets(login)
            if fault == .unpublishedKey { #expect(fixture.server.stats.jwksFetches == 2, "fetched once more for the unknown kid") }
        }
    }

    @Test("an issuer whose metadata names another issuer is refused before any browser opens")
    func issuerMismatch() async throws {
        try await withSignInFixture { fixture in
            fixture.server.setIssuerOverride("https://issuer.invalid")
            let login = try await fixture.login()
            #expect(login.status == 3, "\(login.err)")
            #expect(login.err.contains("names the issuer https://issuer.invalid"), "\(login.err)")
            #expect(fixture.step("opened") == nil)
        }
    }

    @Test("a dead refresh token of a browser account: exit 3, 'the session has ended; run vault login', one refresh attempt")
    func sessionEnded() async throws {
        try await withSignInFixture(accessTTL: 1) { fixture in
            #expect(try await fixture.login().status == 0)
            #expect(fixture.server.revokeRefreshTokens(login: "alice") != nil)
            try await Task.sleep(for: .milliseconds(1100))
            fixture.server.resetStats()
            let request = try await fixture.auth.request()
            #expect(request.status == 3, "\(request.err)")
            #expect(request.err.contains("the session has ended; run vault login"), "\(request.err)")
            let stats = fixture.server.stats
            #expect(stats.refreshAttempts == 1 && stats.logins == 0, "no retry loop, no silent login")
            let token = try await fixture.auth.vault(["token", "--server", fixture.url, "--account", "alice"])
            #expect(token.status == 3 && token.err.contains("the session has ended"))
        }
    }

    @Test(
        "a bare 400 or 401 to a browser account's refresh ends the session: exit 3, status needs login; the hint signs in again",
        arguments: [RefreshFaultMode.emptyStatus400, .emptyStatus401])
    func bareRefusalEndsTheSession(mode: RefreshFaultMode) async throws {
        try await withSignInFixture(accessTTL: 1) { fixture in
            #expect(try await fixture.login().status == 0)
            try await Task.sleep(for: .milliseconds(1100))
            fixture.server.resetStats()
            fixture.server.faults.set(mode, count: 1)
            let request = try await fixture.auth.request()
            #expect(request.status == 3, "\(request.err)")
            #expect(
                request.err.contains(
                    "the session has ended; run vault login \(fixture.url) alice (the token endpoint refused the refresh token"),
                "\(request.err)")
            let status = try await fixture.auth.vault(["status"])
            #expect(status.out.contains("\(fixture.url) alice: needs vault login"), "\(status.out)")
            // The dead refresh token is forgotten: the next command does not offer it again.
            let token = try await fixture.auth.vault(["token", "--server", fixture.url, "--account", "alice"])
            #expect(
                token.status == 3 && token.err.contains("the session has ended; run vault login \(fixture.url) alice"),
                "\(token.err)")
            #expect(fixture.server.stats.refreshAttempts == 1 && fixture.server.stats.logins == 0)
            // The hint's command, as printed, signs in again through the browser.
            let hint = try #require(token.err.firstMatch(of: #/run (vault login \S+ alice)/#)?.1)
            #expect(hint == "vault login \(fixture.url) alice")
            let again = try await fixture.auth.vault(["login", fixture.url, "alice"], env: fixture.browserEnvironment())
            #expect(again.status == 0 && again.err.contains("logged in to \(fixture.url) as alice"), "\(again.err)")
            #expect(try await fixture.auth.request().status == 0)
        }
    }

    @Test("--redirect-uri: the listener binds that port, the provider gets the URI as given, and the settings keep it")
    func fixedRedirectURI() async throws {
        try await withSignInFixture { fixture in
            for attempt in 1...5 {
                let (fd, port) = try RawSocket.boundLoopback(listening: false)
                close(fd)
                let given = "http://127.0.0.1:\(port)/callback"  // the reference server takes only /callback
                let login = try await fixture.login(extra: ["--redirect-uri", given])
                // A test beside this one may have taken the port meanwhile: then try another.
                if login.status == 4 && login.err.contains("port \(port) of 127.0.0.1 is in use") && attempt < 5 { continue }
                #expect(login.status == 0, "\(login.err)")
                let authorizeURL = try #require(fixture.step("authorize")?["url"] as? String)
                let authorize = try #require(URLComponents(string: authorizeURL))
                #expect(authorize.queryItems?.first { $0.name == "redirect_uri" }?.value == given)
                #expect(try fixture.storedSettings()?["redirectURI"] as? String == given)
                return
            }
        }
    }

    @Test("--redirect-uri: sign-ins one after another at one fixed port all listen (the browser closes first: no TIME_WAIT here)")
    func fixedRedirectURIAgainAndAgain() async throws {
        try await withSignInFixture { fixture in
            var given = ""
            for attempt in 1...5 {  // a test beside this one may take the port first
                let (fd, port) = try RawSocket.boundLoopback(listening: false)
                close(fd)
                given = "http://127.0.0.1:\(port)/callback"
                let first = try await fixture.login(extra: ["--redirect-uri", given])
                if first.status == 4 && attempt < 5 { continue }
                #expect(first.status == 0, "\(first.err)")
                break
            }
            for round in 2...3 {
                let login = try await fixture.login(extra: ["--redirect-uri", given])
                #expect(login.status == 0, "round \(round): \(login.err)")
            }
        }
    }

    @Test(
        "a printed vault login hint reads back in a shell as exactly its words: a quote, a dash in front, a space",
        arguments: ["o'brien'; id; echo '", "--server=http://127.0.0.1:9", "a b"])
    func hintReadsBackInAShell(account: String) async throws {
        try await withSignInFixture(accessTTL: 1) { fixture in
            // Signed in under that name, then the session ends: the hint names the account.
            let login = try await fixture.auth.vault(
                ["login", "--server", fixture.url, "--account=" + account, "--provider", "oidc", "--issuer", fixture.url, "--client-id", "cli"],
                env: fixture.browserEnvironment())
            #expect(login.status == 0, "\(login.err)")
            try await Task.sleep(for: .milliseconds(1100))
            fixture.server.faults.set(.emptyStatus400, count: 1)
            let token = try await fixture.auth.vault(["token", "--server", fixture.url, "--account=" + account])
            #expect(token.status == 3, "\(token.err)")
            let hint = try #require(token.err.firstMatch(of: #/run (vault login .*) \(the token endpoint refused/#)?.1, "\(token.err)")
            let words = try await ChildProcess.runAsync("/bin/bash", ["-c", "vault() { printf '%s\\n' \"$@\"; }; " + hint], timeout: 30)
            let expected = account.hasPrefix("-") ? ["login", "--server=\(fixture.url)", "--account=\(account)"] : ["login", fixture.url, account]
            #expect(words.status == 0 && words.out.split(separator: "\n").map(String.init) == expected, "\(hint) -> \(words.out)")
        }
    }

    @Test("--redirect-uri at a port in use: exit 4 at once naming the port; a URI that is not loopback http, or with --device: exit 2")
    func redirectURIRefusals() async throws {
        try await withSignInFixture { fixture in
            let (fd, port) = try RawSocket.boundLoopback(listening: true)
            defer { close(fd) }
            let taken = try await fixture.login(extra: ["--redirect-uri", "http://127.0.0.1:\(port)/callback"])
            #expect(taken.status == 4, "\(taken.err)")
            #expect(taken.err.hasPrefix("vault: port \(port) of 127.0.0.1 is in use by another program"), "\(taken.err)")
            #expect(taken.err.split(separator: "\n").count == 1 && fixture.step("opened") == nil, "one line, no browser: \(taken.err)")
            for (extra, expected) in [
                (["--redirect-uri", "https://127.0.0.1:8400/callback"], "--redirect-uri must be a loopback http URI"),
                (["--redirect-uri", "http://10.0.0.1:8400/callback"], "--redirect-uri must be a loopback http URI"),
                (["--redirect-uri", "http://127.0.0.1:8400/callback", "--device"], "--redirect-uri is for a sign-in through the browser"),
            ] {
                let refused = try await fixture.login(extra: extra)
                #expect(refused.status == 2 && refused.err.contains(expected), "\(extra): \(refused.err)")
            }
            #expect(try fixture.storedSettings() == nil, "nothing stored")
        }
    }

    @Test("--provider oauth2 with explicit endpoints, a public client: no discovery, no ID token; logout --end-session")
    func explicitEndpoints() async throws {
        try await withSignInFixture { fixture in
            let url = fixture.url
            let login = try await fixture.auth.vault(
                [
                    "login", "--server", url, "--account", "alice", "--provider", "oauth2", "--authorization-url",
                    url + "/oauth/authorize", "--token-url", url + "/oauth/token", "--revocation-url", url + "/oauth/revoke",
                    "--client-id", SignInFixture.client,
                ], env: fixture.browserEnvironment())
            #expect(login.status == 0, "\(login.err)")
            let authorize = try #require(fixture.step("authorize")?["url"] as? String)
            #expect(!authorize.contains("nonce="), "no nonce without OpenID Connect")
            #expect(fixture.server.stats.jwksFetches == 0)
            let whoami = try await fixture.auth.vault(["whoami", "--server", url, "--account", "alice"])
            #expect(whoami.status == 1 && whoami.err.contains("no ID token"), "\(whoami.err)")
            #expect(try await fixture.auth.request().status == 0)
            let logout = try await fixture.auth.vault(["logout", "--server", url, "--account", "alice", "--end-session"])
            #expect(logout.status == 0 && logout.err.contains("no end-session endpoint"), "\(logout.err)")
            #expect(fixture.server.stats.revocations == 2)
        }
    }

    @Test("logout --end-session prints the end-session URL with id_token_hint; a revocation endpoint that fails: exit 5, local tokens gone")
    func endSessionAndFailedRevocation() async throws {
        try await withSignInFixture { fixture in
            #expect(try await fixture.login().status == 0)
            let logout = try await fixture.auth.vault([
                "logout", "--server", fixture.url, "--account", "alice", "--end-session", "--post-logout-redirect-uri",
                "http://127.0.0.1:9/bye",
            ])
            #expect(logout.status == 0, "\(logout.err)")
            let printed = try #require(URLComponents(string: logout.out.trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(printed.path == "/oauth/logout")
            let query = Dictionary(uniqueKeysWithValues: (printed.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            #expect(query["id_token_hint"]?.hasPrefix("eyJ") == true && query["client_id"] == SignInFixture.client)
            #expect(query["post_logout_redirect_uri"] == "http://127.0.0.1:9/bye")

            let url = fixture.url
            let login = try await fixture.auth.vault(
                [
                    "login", "--server", url, "--account", "alice", "--provider", "oauth2", "--authorization-url",
                    url + "/oauth/authorize", "--token-url", url + "/oauth/token", "--revocation-url", "http://127.0.0.1:9/revoke",
                    "--client-id", SignInFixture.client,
                ], env: fixture.browserEnvironment())
            #expect(login.status == 0, "\(login.err)")
            let failed = try await fixture.auth.vault(["logout", "--server", url, "--account", "alice"])
            #expect(failed.status == 5, "\(failed.err)")
            #expect(failed.err.contains("could not be told"), "\(failed.err)")
            #expect(try fixture.storedTokens() == nil, "the local tokens are deleted anyway")
        }
    }
}

/// Raw OAuth requests a test makes itself (to see what the server thinks of a token), with curl;
/// the token goes in curl's standard input, not its arguments.
struct OAuthProbe {
    let base: String

    func refresh(_ token: String, clientID: String) async throws -> (status: Int, body: String) {
        let form = "grant_type=refresh_token&client_id=\(clientID)&refresh_token=\(token)"
        let result = try await ChildProcess.runAsync(
            "/usr/bin/curl", ["-sS", "-w", "\n%{http_code}", "--data-binary", "@-", base + "/oauth/token"],
            environment: ["PATH": "/usr/bin:/bin"], stdin: Data(form.utf8), timeout: 30)
        let lines = result.out.split(separator: "\n")
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }
}
