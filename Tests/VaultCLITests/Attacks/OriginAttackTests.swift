// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

/// Attacks on where the bearer token goes: every trick that makes a target name another
/// host. The account is logged in to the real reference server; a second listener plays
/// the attacker's host and records whatever reaches it.
@Suite("Attack: the token never leaves the server's origin", .offThePool)
struct OriginAttackTests {
    /// Runs `body` with a logged-in fixture and an attacker's listener, then stops both.
    func withLoggedIn(_ body: (AuthFixture, HostileServer) async throws -> Void) async throws {
        try await withAuthFixture { fixture in
            let attacker = try HostileServer { _ in HostileServer.response(200, "{\"stolen\":true}") }
            defer { attacker.stop() }
            let login = try await fixture.login()
            #expect(login.status == 0, "\(login.err)")
            try await body(fixture, attacker)
        }
    }

    /// Targets that name the attacker's host, in every spelling that parsers disagree on.
    static func hostileTargets(serverPort: Int, attackerPort: Int) -> [String] {
        let a = attackerPort
        return [
            "//127.0.0.1:\(a)/x", "///127.0.0.1:\(a)/x", "////127.0.0.1:\(a)/x", "/\\127.0.0.1:\(a)/x", "\\\\127.0.0.1:\(a)/x",
            "\\/127.0.0.1:\(a)/x", "http://127.0.0.1:\(a)/x", "HTTP://127.0.0.1:\(a)/x", "http://127.0.0.1:\(serverPort)@127.0.0.1:\(a)/x",
            "http://alice@127.0.0.1:\(serverPort)/api/get_devs", "http://127.0.0.1:\(a)\\@127.0.0.1:\(serverPort)/x",
            "http://localhost:\(a)/x", "http://[::1]:\(a)/x", "http:127.0.0.1:\(a)/x", "http:/127.0.0.1:\(a)/x",
            "http://127.0.0.1:\(serverPort).nip.io/x", "https://127.0.0.1:\(serverPort)/x", "ftp://127.0.0.1:\(a)/x",
            "http://127.0.0.1:\(a)%2F/x", "/x\r\nHost: 127.0.0.1:\(a)", " //127.0.0.1:\(a)/x", "",
        ]
    }

    @Test("every hostile target: exit 2, one line, nothing reaches the attacker, no token printed")
    func hostileTargetsAreRefused() async throws {
        try await withLoggedIn { fixture, attacker in
            let serverPort = Int(fixture.url.split(separator: ":").last!)!
            for target in Self.hostileTargets(serverPort: serverPort, attackerPort: attacker.port) {
                let result = try await fixture.request(target)
                #expect(result.status == 2, "\(target.debugDescription): exit \(result.status) \(result.err)")
                #expect(
                    result.err.hasPrefix("vault: ") && result.err.split(separator: "\n").count == 1,
                    "\(target.debugDescription): \(result.err)")
                #expect(result.stdout.isEmpty, "\(target.debugDescription)")
                fixture.expectNoLeak(result)
            }
            #expect(attacker.received.isEmpty, "the attacker saw \(attacker.received.map(\.target))")
            #expect(fixture.server.stats.authorized == 0 && fixture.server.stats.unauthorized == 0, "nothing was sent at all")
        }
    }

    @Test("methods and headers that would split the request or reroute the token: exit 2, nothing sent, no value echoed")
    func smugglingMethodsAndHeaders() async throws {
        try await withLoggedIn { fixture, attacker in
            let attempts: [[String]] = [
                ["-X", "GET /smuggled HTTP/1.1\r\nHost: 127.0.0.1:\(attacker.port)\r\nX:"],
                ["-X", "GET\tX"], ["-X", ""], ["-X", "G E T"],
                ["-H", "Host: 127.0.0.1:\(attacker.port)"], ["-H", "host: evil.example"],
                ["-H", "X-Key: hidden-value-5b1e\r\nAuthorization: Bearer EVIL"], ["-H", "X-Key: a\u{1B}[2Jb"], ["-H", "X-Key: a\u{7F}"],
                ["-H", "Transfer-Encoding: chunked"], ["-H", "Content-Length: 0"], ["-H", "Connection: upgrade"],
                ["-H", "Proxy-Authorization: Basic eA=="], ["-H", "Authorization: Bearer mine"], ["-H", "Bad Name: x"],
                ["-H", ": empty"],
            ]
            for attempt in attempts {
                let result = try await fixture.vault(
                    ["request", "--server", fixture.url, "--account", "alice"] + attempt + ["/api/get_devs"])
                #expect(result.status == 2, "\(attempt): exit \(result.status) \(result.err)")
                #expect(result.err.hasPrefix("vault: ") && result.err.split(separator: "\n").count == 1, "\(attempt): \(result.err)")
                #expect(!result.err.contains("hidden-value-5b1e"), "a header value is never echoed")
                fixture.expectNoLeak(result)
            }
            #expect(fixture.server.stats.authorized == 0 && fixture.server.stats.unauthorized == 0, "nothing was sent")
            #expect(attacker.received.isEmpty)
        }
    }

    @Test("--server with a query or a fragment, and a non-UTF-8 password: exit 2 with the reason")
    func badServerAndPassword() async throws {
        try await withAuthFixture { fixture in
            for server in [fixture.url + "#frag", fixture.url + "?q=1"] {
                let result = try await fixture.vault(["login", "--server", server, "--account", "alice"], stdin: fixture.password)
                #expect(result.status == 2, "\(server): \(result.err)")
                #expect(result.err.contains("without a query or a fragment"))
            }
            let binary = try await VaultProcess.vaultAsync(
                ["login", "--server", fixture.url, "--account", "alice"], environment: fixture.env, stdin: Data([0xFF, 0xFE, 0x41]))
            #expect(binary.status == 2, "\(binary.err)")
            #expect(binary.err.contains("not UTF-8"))
            #expect(fixture.server.stats.logins == 0 && fixture.server.stats.failedLogins == 0)
        }
    }

    @Test("same-origin spellings are sent to the server: upper-case scheme and host, explicit port, %2F, a query with ://")
    func sameOriginSpellingsWork() async throws {
        try await withLoggedIn { fixture, attacker in
            let upper = fixture.url.replacingOccurrences(of: "http://", with: "HTTP://")
            for target in [
                upper + "/api/get_devs", "/api/get_devs?next=http://127.0.0.1:\(attacker.port)/x", "api/get_devs",
                "/api/get_devs#http://127.0.0.1:\(attacker.port)",
            ] {
                let result = try await fixture.request(target)
                #expect(result.status == 0, "\(target): \(result.err)")
                #expect(result.out.contains("Grace Hopper"), "\(target)")
            }
            let encoded = try await fixture.request("/%2F%2F127.0.0.1:\(attacker.port)/x")
            #expect(encoded.status == 5, "a path on the server itself, which has no such path: \(encoded.err)")
            #expect(attacker.received.isEmpty)
        }
    }

    @Test("one --timeout covers a request and all its redirects: slow hops add up to exit 5")
    func slowRedirectChains() async throws {
        let origin = try HostileServer { request in
            switch request.target {
            case "/api/login": HostileServer.tokens()
            case let target where target.hasPrefix("/hop/"):
                // Each hop answers within the timeout; five of them do not.
                .delayed(HostileServer.head(302, headers: [("Location", target + "x"), ("Content-Length", "0")]), seconds: 1.2)
            default: HostileServer.response(200, "{}")
            }
        }
        defer { origin.stop() }
        let fixture = try HostileFixture(server: origin.url)
        defer { fixture.remove() }
        #expect(try await fixture.vault(["login"], stdin: "pw").status == 0)
        let result = try await fixture.vault(["request", "--timeout", "3", "/hop/"], timeout: 30)
        #expect(result.status == 5, "\(result.err)")
        #expect(result.err.contains("within") && result.err.split(separator: "\n").count == 1, "\(result.err)")
        #expect(origin.received.count <= 5, "at most the hops that fit in 3 s: \(origin.received.count)")
    }

    @Test("a redirect to another origin loses the token; a body is never re-sent there")
    func redirectsToAnotherOrigin() async throws {
        let attacker = try HostileServer { _ in HostileServer.response(200, "{\"stolen\":true}") }
        defer { attacker.stop() }
        for status in [301, 302, 303, 307, 308] {
            let origin = try HostileServer { request in
                switch request.target {
                case "/api/login": HostileServer.tokens()
                case "/go": HostileServer.redirect(status, to: "http://127.0.0.1:\(attacker.port)/landed")
                case "/same": HostileServer.redirect(status, to: "/final")
                default: HostileServer.response(200, "{\"ok\":\"\(request.header("Authorization") != nil)\"}")
                }
            }
            defer { origin.stop() }
            let fixture = try HostileFixture(server: origin.url)
            defer { fixture.remove() }
            #expect(try await fixture.vault(["login"], stdin: "pw").status == 0)

            let get = try await fixture.vault(["request", "--verbose", "/go"])
            #expect(get.status == 0, "\(status) GET: \(get.err)")
            #expect(get.out.contains("stolen"))
            #expect(get.err.contains("without the token"), "\(get.err)")
            let same = try await fixture.vault(["request", "/same"])
            #expect(same.status == 0 && same.out.contains("\"ok\":\"true\""), "same origin keeps the token: \(same.out)")

            let post = try await fixture.vault(["request", "-X", "PUT", "--data", "a-body-that-must-stay-home", "/go"])
            if status == 303 || status == 301 || status == 302 {
                // a PUT keeps its body on 301/302; only 303 turns it into a GET
                #expect(post.status == (status == 303 ? 0 : 5), "\(status) PUT: \(post.err)")
            } else {
                #expect(post.status == 5, "\(status) PUT: \(post.err)")
                #expect(post.err.contains("another origin"))
            }
            #expect(!post.err.contains("hostile-access-token") && !get.err.contains("hostile-access-token"))
        }
        #expect(attacker.received.allSatisfy { $0.header("Authorization") == nil }, "no token reached the attacker")
        #expect(attacker.received.allSatisfy { !String(decoding: $0.body, as: UTF8.self).contains("a-body-that-must-stay-home") })
        #expect(!attacker.received.isEmpty, "the unauthenticated GETs did land there")
    }

    @Test("a redirect the policy refuses is the server's fault: exit 5, not bad usage")
    func refusedRedirectTargets() async throws {
        let origin = try HostileServer { request in
            switch request.target {
            case "/api/login": HostileServer.tokens()
            case "/dot": HostileServer.redirect(302, to: "http://127.0.0.1.:9/x")
            case "/remote": HostileServer.redirect(302, to: "http://example.com/x")
            default: HostileServer.redirect(302, to: "http://user:pw@127.0.0.1:9/x")
            }
        }
        defer { origin.stop() }
        let fixture = try HostileFixture(server: origin.url)
        defer { fixture.remove() }
        #expect(try await fixture.vault(["login"], stdin: "pw").status == 0)
        for path in ["/dot", "/remote", "/userinfo"] {
            let result = try await fixture.vault(["request", path])
            #expect(result.status == 5, "\(path): exit \(result.status) \(result.err)")
            #expect(result.err.contains("refusing its redirect"), "\(path): \(result.err)")
        }
    }

    @Test(
        "login, refresh and OAuth token requests never follow a redirect: the password never reaches the other host",
        arguments: [301, 302, 303, 307, 308])
    func credentialRequestsNeverFollowRedirects(status: Int) async throws {
        let attacker = try HostileServer { _ in HostileServer.tokens() }
        defer { attacker.stop() }
        let origin = try HostileServer { request in
            HostileServer.redirect(status, to: "http://127.0.0.1:\(attacker.port)\(request.target)")
        }
        defer { origin.stop() }
        let fixture = try HostileFixture(server: origin.url)
        defer { fixture.remove() }
        let login = try await fixture.vault(["login"], stdin: "the-password-7f3a")
        #expect(login.status == 5, "\(login.err)")
        #expect(login.err.contains("redirect"), "\(login.err)")
        #expect(!login.err.contains("the-password-7f3a"))
        let secretFile = fixture.dir + "/client-secret"
        _ = FileManager.default.createFile(atPath: secretFile, contents: Data("client-secret-9c1d".utf8), attributes: [.posixPermissions: 0o600])
        let oauth = try await fixture.vault(
            [
                "login", "--provider", "oauth2", "--token-url", origin.url + "/oauth/token", "--client-id", "c",
                "--client-secret-file", secretFile, "--client-auth", "form",
            ], stdin: "the-password-7f3a")
        #expect(oauth.status == 5, "\(oauth.err)")
        #expect(attacker.received.isEmpty, "nothing followed the redirect")
        let list = try await VaultProcess.vaultAsync(["list", "--all"], environment: fixture.environment)
        #expect(list.status == 0 && list.out.isEmpty, "nothing stored: \(list.out) \(list.err)")
    }
}

/// A vault environment (file backend in a temporary directory) logged in to a server
/// that is not the reference server.
/// A logged-in fixture on a hostile origin whose `/api/login` answers with tokens and
/// whose other paths answer with `resource`; the origin is stopped and the fixture removed
/// after `body`.
func withHostileOrigin(
    _ resource: @escaping @Sendable (HostileServer.Received) -> HostileServer.Reply,
    _ body: (HostileFixture, HostileServer) async throws -> Void
) async throws {
    let origin = try HostileServer { request in request.target == "/api/login" ? HostileServer.tokens() : resource(request) }
    let fixture = try HostileFixture(server: origin.url)
    defer {
        origin.stop()
        fixture.remove()
    }
    let login = try await fixture.vault(["login"], stdin: "pw")
    #expect(login.status == 0, "\(login.err)")
    try await body(fixture, origin)
}

struct HostileFixture {
    let server: String
    let dir: String

    init(server: String) throws {
        self.server = server
        dir = try TemporaryDirectory.make(prefix: "vault-hostile")
    }

    var environment: [String: String] {
        VaultProcess.fileBackendEnvironment(home: dir, file: "\(dir)/vault/vault.db", passphrase: "hostile fixture passphrase")
    }

    /// `vault COMMAND --server SERVER --account alice ARGS...` (the first argument is the command).
    func vault(
        _ arguments: [String], stdin: String? = nil, extra: [String: String] = [:], timeout: Double = 60
    ) async throws
        -> ProcessResult
    {
        let command = [arguments[0], "--server", server, "--account", "alice"] + arguments.dropFirst()
        return try await VaultProcess.vaultAsync(
            command, environment: environment.merging(extra) { $1 }, stdin: stdin.map { Data($0.utf8) }, timeout: timeout)
    }

    func remove() { TemporaryDirectory.remove(dir) }
}
