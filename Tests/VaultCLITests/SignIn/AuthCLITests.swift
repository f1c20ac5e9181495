// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

/// Runs `body` with a reference auth server in this test process and a vault environment
/// (file backend in a fresh temporary directory) for `vault` child processes that talk to
/// it; stops the server and removes the directory before returning, also on throw.
func withAuthFixture<T>(
    accessTTL: Double = 60, refreshTTL: Double = 300, clients: [CredentialPair] = [],
    _ body: (AuthFixture) async throws -> T
) async throws -> T {
    let configuration = AuthServerConfiguration(
        accessTokenLifetime: accessTTL, refreshTokenLifetime: refreshTTL,
        users: [CredentialPair(name: "alice", secret: AuthFixture.password)], clients: clients)
    return try await withReferenceServer(configuration) { running in
        try await withTemporaryDirectory("vault-auth") { dir in
            try await body(AuthFixture(server: running.server, url: running.url, dir: dir))
        }
    }
}

/// A reference auth server in this test process, and a vault environment (file backend
/// in a temporary directory) for `vault` child processes that talk to it (`withAuthFixture`).
struct AuthFixture: Sendable {
    static let password = "alice-password-5e1c"
    let server: ReferenceAuthServer
    let url: String
    let dir: String
    var password: String { Self.password }

    var env: [String: String] {
        VaultProcess.fileBackendEnvironment(home: dir, file: "\(dir)/vault/vault.db", passphrase: "fixture passphrase")
    }

    func vault(
        _ args: [String], stdin: String? = nil, env extra: [String: String] = [:], timeout: Double = 60
    ) async throws
        -> ProcessResult
    {
        try await VaultProcess.vaultAsync(
            args, environment: env.merging(extra) { $1 }, stdin: stdin.map { Data($0.utf8) }, timeout: timeout)
    }

    func login(account: String = "alice", password: String? = nil) async throws -> ProcessResult {
        try await vault(["login", "--server", url, "--account", account], stdin: password ?? self.password)
    }

    func request(_ path: String = "/api/get_devs", verbose: Bool = false, env: [String: String] = [:]) async throws -> ProcessResult {
        try await vault(["request", "--server", url, "--account", "alice", path] + (verbose ? ["--verbose"] : []), env: env)
    }

    /// Runs `count` `vault request` processes at the same time and waits for them all.
    func concurrentRequests(_ count: Int) async throws -> [ProcessResult] {
        let running = try (0..<count).map { _ in
            try ChildProcess.start(
                VaultProcess.vaultPath, ["request", "--server", url, "--account", "alice", "/api/get_devs"], environment: env)
        }
        var results: [ProcessResult] = []
        for process in running { results.append(try await process.finishAsync()) }
        return results
    }

    /// Every token the server issued to this fixture's processes is unknown here, so
    /// leaks are checked against the stored tokens and the password.
    func expectNoLeak(_ result: ProcessResult, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!result.err.contains(password), "password on stderr", sourceLocation: sourceLocation)
        #expect(!result.out.contains(password), "password on stdout", sourceLocation: sourceLocation)
        #expect(!containsJWT(result.err), "a JWT on stderr", sourceLocation: sourceLocation)
    }

    /// Waits (bounded) until `condition` holds.
    func wait(seconds: Double, until condition: () -> Bool = { false }) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, !condition() { try await Task.sleep(for: .milliseconds(50)) }
    }
}

@Suite(.offThePool) struct AuthCLITests {
    @Test func loginRequestTokenLogout() async throws {
        try await withAuthFixture { fixture in
            let login = try await fixture.login()
            #expect(login.status == 0, "\(login.err)")
            fixture.expectNoLeak(login)

            let response = try await fixture.request(verbose: true)
            #expect(response.status == 0, "\(response.err)")
            #expect(response.out.contains("Ada Lovelace"))
            #expect(response.err.contains("used the stored access token"))
            fixture.expectNoLeak(response)

            let token = try await fixture.vault(["token", "--server", fixture.url, "--account", "alice"])
            #expect(token.status == 0)
            #expect(token.out.hasPrefix("eyJ") && token.out.hasSuffix("\n") && containsJWT(token.out))
            #expect(!containsJWT(token.err))

            // the password item is what `vault load` reads; tokens are not password items
            let password = try await fixture.vault(["load", "--server", fixture.url + "/", "--account", "alice"])
            #expect(password.out == fixture.password)
            let listed = try await fixture.vault(["list"])
            #expect(listed.out.split(separator: "\n").count == 1)

            let stats = fixture.server.stats
            #expect(stats.logins == 1 && stats.refreshes == 0 && stats.authorized == 1)

            #expect(try await fixture.vault(["logout", "--server", fixture.url, "--account", "alice"]).status == 0)
            let after = try await fixture.request()
            #expect(after.status == 3)
            #expect(after.err.contains("vault login"))
            #expect(try await fixture.vault(["load", "--server", fixture.url, "--account", "alice"]).status == 0, "logout keeps the password")
            #expect(try await fixture.vault(["logout", "--server", fixture.url, "--account", "alice", "--forget-password"]).status == 0)
            #expect(try await fixture.vault(["load", "--server", fixture.url, "--account", "alice"]).status == 1)
        }
    }

    @Test("the README's curl recipe: the token reaches curl through a pipe, never its arguments")
    func tokenThroughAPipeToCurl() async throws {
        try await withAuthFixture { fixture in
            #expect(try await fixture.login().status == 0)
            let script = """
                "$VAULT" token --server "$URL" --account alice | sed 's/^/Authorization: Bearer /' | curl -fsS -H @- "$URL/api/get_devs"
                """
            var env = fixture.env
            env["VAULT"] = VaultProcess.vaultPath
            env["URL"] = fixture.url
            let result = try await ChildProcess.start("/bin/bash", ["-c", script], environment: env).finishAsync()
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out.contains("Grace Hopper"))
            #expect(fixture.server.stats.authorized == 1)
        }
    }

    @Test func wrongPasswordAtLoginStoresNothing() async throws {
        try await withAuthFixture { fixture in
            let login = try await fixture.login(password: "not-it")
            #expect(login.status == 3)
            #expect(fixture.server.stats.failedLogins == 1)
            let list = try await fixture.vault(["list", "--all"])
            #expect(list.status == 0, "\(list.err)")
            #expect(list.out.isEmpty, "nothing stored: \(list.out)")
        }
    }

    @Test func sixteenProcessesAtExpiryCauseOneRefresh() async throws {
        try await withAuthFixture(accessTTL: 4, refreshTTL: 60) { fixture in
            #expect(try await fixture.login().status == 0)
            // The refreshed token lives 10 minutes: a process that starts late on a loaded
            // machine finds it fresh, so a second refresh would be a real one too many (with
            // 4 s tokens a late process rightly refreshed again: a run failed so).
            fixture.server.setAccessTokenLifetime(600)
            try await Task.sleep(for: .milliseconds(4100))  // the access token has expired
            for result in try await fixture.concurrentRequests(16) {
                #expect(result.status == 0, "\(result.err)")
                #expect(result.out.contains("Grace Hopper"))
                fixture.expectNoLeak(result)
            }
            let stats = fixture.server.stats
            #expect(stats.refreshes == 1, "refreshes: \(stats.refreshes)")
            #expect(stats.failedRefreshes == 0)
            #expect(stats.unauthorized == 0, "no expired token was sent")
            #expect(stats.logins == 1, "the fifteen others adopted the rotated tokens; nobody logged in again")
        }
    }

    @Test func aDeadRefreshTokenLeadsToOneSilentLogin() async throws {
        // A 3 s token: the silent login's token must outlive a loaded machine's slow answers.
        try await withAuthFixture(accessTTL: 3, refreshTTL: 60) { fixture in
            #expect(try await fixture.login().status == 0)
            _ = fixture.server.revokeRefreshTokens(login: "alice")
            try await Task.sleep(for: .milliseconds(3200))
            let result = try await fixture.request(verbose: true)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.err.contains("logged in again"))
            fixture.expectNoLeak(result)
            let stats = fixture.server.stats
            #expect(stats.logins == 2, "one interactive login and one silent one")
            #expect(stats.failedRefreshes == 1)
        }
    }

    @Test func eightProcessesAfterTheRefreshTokenDiedCauseOneLogin() async throws {
        try await withAuthFixture(accessTTL: 4, refreshTTL: 60) { fixture in
            #expect(try await fixture.login().status == 0)
            _ = fixture.server.revokeRefreshTokens(login: "alice")
            try await Task.sleep(for: .milliseconds(4100))
            for result in try await fixture.concurrentRequests(8) {
                #expect(result.status == 0, "\(result.err)")
            }
            #expect(fixture.server.stats.logins == 2, "logins: \(fixture.server.stats.logins)")
        }
    }

    @Test func aRejectedStoredPasswordIsNotRetriedUntilItChanges() async throws {
        try await withAuthFixture(accessTTL: 1, refreshTTL: 60) { fixture in
            #expect(try await fixture.login().status == 0)
            _ = fixture.server.revokeRefreshTokens(login: "alice")
            _ = fixture.server.setPassword(login: "alice", password: "rotated-password-77")
            try await Task.sleep(for: .milliseconds(1200))
            let first = try await fixture.request()
            #expect(first.status == 3)
            #expect(first.err.contains("stored credentials were rejected; run vault login"))
            #expect(first.err.split(separator: "\n").count == 1)
            #expect(fixture.server.stats.failedLogins == 1)
            for _ in 0..<5 {
                #expect(try await fixture.request().status == 3)
            }
            #expect(fixture.server.stats.failedLogins == 1, "no further login within the cool-down")
            #expect(fixture.server.stats.logins == 1)
            #expect(fixture.server.stats.failedRefreshes == 1, "the dead refresh token is offered once, then forgotten")

            let saved = try await fixture.vault(["save", "--server", fixture.url, "--account", "alice"], stdin: "rotated-password-77")
            #expect(saved.status == 0)
            let fixed = try await fixture.request(verbose: true)
            #expect(fixed.status == 0, "\(fixed.err)")
            #expect(fixed.err.contains("logged in again"))
            #expect(!fixed.err.contains("rotated-password-77"))
            #expect(fixture.server.stats.logins == 2)
        }
    }

    @Test func serverDownDuringReloginExits5AndKeepsState() async throws {
        try await withAuthFixture(accessTTL: 1, refreshTTL: 60) { fixture in
            #expect(try await fixture.login().status == 0)
            try await Task.sleep(for: .milliseconds(1200))
            let before = try await fixture.vault(["list", "--all"])
            await fixture.server.stop()
            let result = try await fixture.request()
            #expect(result.status == 5, "\(result.err)")
            #expect(result.err.contains("network"))
            #expect(try await fixture.vault(["list", "--all"]).out == before.out)
            #expect(try await fixture.vault(["load", "--server", fixture.url, "--account", "alice"]).out == fixture.password)
        }
    }

    @Test func refreshFailuresAreServerErrorsAndKeepTokens() async throws {
        try await withAuthFixture(accessTTL: 1, refreshTTL: 60) { fixture in
            #expect(try await fixture.login().status == 0)
            try await Task.sleep(for: .milliseconds(1200))
            fixture.server.faults.set(.status500)
            let tokensBefore = try await fixture.vault(["token", "--server", fixture.url, "--account", "alice"])
            #expect(tokensBefore.status == 5)
            fixture.server.faults.set(.garbage)
            #expect(try await fixture.request().status == 5)
            fixture.server.faults.set(.hang, hangSeconds: 20)
            let hung = try await fixture.vault(["request", "--server", fixture.url, "--account", "alice", "--timeout", "1", "/api/get_devs"])
            #expect(hung.status == 5)
            fixture.server.faults.reset()
            let recovered = try await fixture.request()
            #expect(recovered.status == 0, "the stored refresh token survived: \(recovered.err)")
            #expect(fixture.server.stats.logins == 1, "no re-login was needed")
        }
    }

    @Test func anErrorStatusExits5WithTheBody() async throws {
        try await withAuthFixture { fixture in
            #expect(try await fixture.login().status == 0)
            let missing = try await fixture.request("/api/nothing-here")
            #expect(missing.status == 5)
            #expect(missing.err.contains("404"))
            #expect(missing.err.split(separator: "\n").count == 1, "one line: \(missing.err)")
            let body = try #require(
                try JSONSerialization.jsonObject(with: missing.stdout) as? [String: Any], "the server's body on stdout: \(missing.out)")
            #expect(body["code"] as? Int == 404)
            let elsewhere = try await fixture.request("https://elsewhere.example/api/get_devs")
            #expect(elsewhere.status == 2, "the token never goes to another origin")
            let remote = try await fixture.vault(["request", "--server", "http://example.com", "--account", "alice", "/x"])
            #expect(remote.status == 2)
            #expect(remote.err.contains("http"))
        }
    }
}
