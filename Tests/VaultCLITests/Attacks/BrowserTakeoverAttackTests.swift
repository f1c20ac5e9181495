// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

/// Issue 23 §3: another local user reads the browser's command line from `/proc` (every user
/// can) and races the person's browser with the link it finds there: signing in as itself
/// before or after the browser, fetching the link, or sending a made-up redirect straight to
/// the listener. It must lose every time: its connections are refused (and reported on
/// stderr), the person's sign-in goes on, and the tokens stored are the person's. Then the
/// defence behind that, for programs of the person's own user: the link works once, and the
/// redirect needs the cookie it set.
@Suite("Attack: another local user takes over a browser sign-in", .offThePool)
struct BrowserTakeoverAttackTests {
    /// The other local user.
    static let attackerUID = 4242
    static let mallory = CredentialPair(name: "mallory", secret: "mallory-password-77a1")

    /// How the attacker uses what it read in the browser's command line.
    enum Approach: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Signs in as mallory through the link before the person's browser fetches it.
        case signInBeforeTheBrowser
        /// Signs in as mallory through the link while the person's browser, signed in, holds its redirect.
        case signInAfterTheBrowser
        /// Only fetches the link, before the person's browser.
        case fetchTheLink
        /// Sends a made-up redirect (the link's `state`, if it shows one) straight to the listener's `/callback`.
        case callbackDirectly

        var testDescription: String { rawValue }
        /// Where the person's browser waits while the attacker runs.
        var browserPause: String { self == .signInAfterTheBrowser ? "callback" : "start" }
        /// The attacker's test-browser mode.
        var attackerMode: String {
            switch self {
            case .signInBeforeTheBrowser, .signInAfterTheBrowser: "normal"
            case .fetchTheLink: "fetch-only"
            case .callbackDirectly: "callback-only"
            }
        }
    }

    @Test(
        "another uid reads the link from the browser's command line and races the browser: it gets nothing, alice is signed in",
        .enabled(if: getuid() == 0, "running a process as uid 4242 (setpriv) needs root"), arguments: Approach.allCases)
    func anotherUserLoses(_ approach: Approach) async throws {
        try await withSignInFixture(otherUsers: [Self.mallory]) { fixture in
            try await withAttackerFiles { shared in
                let go = "\(fixture.auth.dir)/go"
                var environment = fixture.auth.env.merging(fixture.browserEnvironment()) { $1 }
                environment["BROWSER"] = "\(shared)/test-browser"
                environment["TEST_BROWSER_PAUSE"] = approach.browserPause
                environment["TEST_BROWSER_GO"] = go
                let vault = try ChildProcess(
                    VaultProcess.vaultPath,
                    ["login", "--server", fixture.url, "--account", "alice", "--provider", "oidc", "--issuer", fixture.url, "--client-id", "cli"],
                    environment: environment)
                try await fixture.auth.wait(seconds: 30) { fixture.step("paused") != nil }
                let paused = fixture.step("paused")
                let attack = try await runAttacker(approach, shared: shared)
                _ = FileManager.default.createFile(atPath: go, contents: nil)
                let login = try await vault.finishAsync(timeout: 60)
                try #require(paused != nil, "the browser never started: \(login.err)")

                // The attacker found the browser and read its link: the start link, with nothing of the request in it.
                let attacker = attackerSteps(shared)
                let stolen = try #require(attacker.first { $0["step"] as? String == "stolen" }?["url"] as? String, "\(attack.err)")
                #expect(attacker.first?["uid"] as? Int == Self.attackerUID)
                #expect(stolen == fixture.step("opened")?["url"] as? String)
                #expect(stolen.contains("/start/"), "the browser is given the start link: \(stolen)")
                for parameter in ["state=", "code_challenge", "nonce=", "redirect_uri", "client_id"] {
                    #expect(!stolen.contains(parameter), "\(parameter) in the browser's command line: \(stolen)")
                }
                // Every connection the attacker made to vault's listener was closed without an answer.
                let atListener = attacker.filter { ["start", "forged-callback"].contains($0["step"] as? String) }
                #expect(!atListener.isEmpty, "\(attacker)")
                #expect(atListener.allSatisfy { $0["status"] as? Int == 0 }, "the listener answered the attacker: \(atListener)")
                #expect(!attacker.contains { $0["step"] as? String == "consent" && $0["code"] is String }, "mallory got a code")

                // vault: alice signed in, the refusal reported once, nothing of mallory's stored.
                #expect(login.status == 0, "\(login.err)")
                let refusal = "vault: refused a connection to the sign-in listener from uid \(Self.attackerUID)\n"
                #expect(login.err.components(separatedBy: refusal).count == 2, "reported once: \(login.err)")
                #expect(login.err.contains("signed in: alice@vault.invalid (sub 1)"), "\(login.err)")
                #expect(!login.err.contains("mallory") && !login.out.contains("mallory"))
                fixture.expectNoSecrets(login)
                let stored = try #require(try fixture.storedTokens())
                #expect(Self.subject(of: stored["idToken"] as? String) == "1", "the stored tokens are alice's")
                #expect(fixture.server.stats.codeExchanges == 1)
                #expect((fixture.step("redirect")?["body"] as? String)?.contains("Signed in") == true, "\(fixture.browserSteps())")
                // No token of alice's reached the attacker's log or output.
                let attackerText = ((try? String(contentsOfFile: "\(shared)/attacker.log", encoding: .utf8)) ?? "") + attack.out + attack.err
                for case let token? in [stored["accessToken"] as? String, stored["refreshToken"] as? String, stored["idToken"] as? String] {
                    #expect(!attackerText.contains(token) && !login.err.contains(token) && !login.out.contains(token))
                }
            }
        }
    }

    @Test("the link fetched a second time (another program of the same user): exit 3, one line, nothing stored")
    func linkUsedTwice() async throws {
        try await withSignInFixture { fixture in
            let login = try await fixture.login(mode: "start-twice")
            expectStopped(login, fixture: fixture)
            try await fixture.waitForBrowser()
            #expect(fixture.step("start")?["status"] as? Int == 302, "\(fixture.browserSteps())")
            let again = try #require(fixture.step("start-again"))
            #expect(again["status"] as? Int == 403 && (again["body"] as? String)?.contains("Another program used this sign-in link") == true)
            // The page names vault and its command: the command passes its names to the library.
            #expect((again["body"] as? String)?.contains("so vault stopped the sign-in and stored nothing. Run vault login again.") == true)
        }
    }

    @Test("a redirect without the link's cookie (another program of the same user): exit 3, one line, nothing stored")
    func callbackWithoutTheCookie() async throws {
        try await withSignInFixture { fixture in
            let login = try await fixture.login(mode: "no-cookie")
            expectStopped(login, fixture: fixture)
            try await fixture.waitForBrowser()
            #expect(fixture.step("redirect")?["status"] as? Int == 403, "\(fixture.browserSteps())")
        }
    }

    /// Exit 3 with the one line that says another program used the link; no code exchanged, nothing stored.
    func expectStopped(_ login: ProcessResult, fixture: SignInFixture, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(login.status == 3, "\(login.err)", sourceLocation: sourceLocation)
        let last = login.err.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("vault: ") && last.contains("another program used the sign-in link"), "\(login.err)", sourceLocation: sourceLocation)
        #expect(login.err.split(separator: "\n").filter { $0.contains("another program") }.count == 1, sourceLocation: sourceLocation)
        #expect((try? fixture.storedTokens()) == nil, sourceLocation: sourceLocation)
        #expect(fixture.server.stats.codeExchanges == 0, sourceLocation: sourceLocation)
        fixture.expectNoSecrets(login, sourceLocation: sourceLocation)
    }

    /// Runs the attacker as uid 4242 (bounded): it finds the browser of this test by its path.
    func runAttacker(_ approach: Approach, shared: String) async throws -> ProcessResult {
        let browser = "\(shared)/test-browser"
        let uid = String(Self.attackerUID)
        return try await ChildProcess.runAsync(
            "/usr/bin/setpriv",
            ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/python3", "\(shared)/takeover-attacker", browser, browser],
            environment: [
                "PATH": "/usr/bin:/bin", "HOME": shared, "TEST_BROWSER_LOG": "\(shared)/attacker.log",
                "TEST_BROWSER_LOGIN": Self.mallory.name, "TEST_BROWSER_PASSWORD": Self.mallory.secret,
                "TEST_BROWSER_MODE": approach.attackerMode,
            ], timeout: 60)
    }

    /// A 0755 directory both users can read, with copies of the browser stand-in and the
    /// attacker (the repository may not be readable by uid 4242), and the attacker's log,
    /// which belongs to it.
    func withAttackerFiles(_ body: (String) async throws -> Void) async throws {
        try await withTemporaryDirectory("vault-takeover") { shared in
            chmod(shared, 0o755)
            let helpers = URL(fileURLWithPath: SignInFixture.browserPath).deletingLastPathComponent().path
            for name in ["test-browser", "takeover-attacker"] {
                // Written close-on-exec (``ScriptFile``): vault runs these at once (ETXTBSY).
                let text = try String(contentsOfFile: "\(helpers)/\(name)", encoding: .utf8)
                try ScriptFile.write(text, to: "\(shared)/\(name)", mode: 0o755)
            }
            let log = "\(shared)/attacker.log"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            chmod(log, 0o600)
            chown(log, uid_t(Self.attackerUID), gid_t(Self.attackerUID))
            try await body(shared)
        }
    }

    func attackerSteps(_ shared: String) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: "\(shared)/attacker.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    /// The `sub` of a JWT (its payload read without any check: the test only asks whose it is).
    static func subject(of token: String?) -> String? {
        guard let parts = token?.split(separator: "."), parts.count == 3 else { return nil }
        var payload = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        guard let data = Data(base64Encoded: payload), let claims = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return nil
        }
        return claims["sub"] as? String
    }
}
