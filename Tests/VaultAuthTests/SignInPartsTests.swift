// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import Testing
import VaultStore
import VaultTestSupport
import VaultTesting

@testable import VaultAuth

@Suite("Discovery, PKCE, the browser command, the loopback listener, the account lock", .offThePool)
struct SignInPartsTests {
    static let metadata = #"""
        {"issuer":"https://id.example.com/tenant","authorization_endpoint":"https://id.example.com/tenant/authorize",
         "token_endpoint":"https://id.example.com/tenant/token","jwks_uri":"https://id.example.com/tenant/keys"}
        """#

    @Test("discovery falls back to RFC 8414's path (well-known segment before the issuer's path) after a 404")
    func rfc8414Fallback() async throws {
        let transport = FakeTransport { request in
            request.url.path == "/.well-known/oauth-authorization-server/tenant"
                ? Reply(status: 200, body: Array(Self.metadata.utf8)) : Reply(status: 404)
        }
        let metadata = try await ProviderMetadata.discover(
            issuer: "https://id.example.com/tenant", transport: transport, timeout: .seconds(5))
        #expect(metadata.tokenEndpoint == "https://id.example.com/tenant/token")
        #expect(metadata.deviceAuthorizationEndpoint == nil)
        #expect(
            transport.requests.all.map(\.url.path) == ["/tenant/.well-known/openid-configuration", "/.well-known/oauth-authorization-server/tenant"])
    }

    @Test("metadata naming another issuer, a plain-http remote endpoint, or no token endpoint is refused")
    func refusedMetadata() async throws {
        let documents = [
            (#"{"issuer":"https://evil.example.com","token_endpoint":"https://evil.example.com/token"}"#, "names the issuer"),
            (#"{"issuer":"https://id.example.com","token_endpoint":"http://id.example.com/token"}"#, "token_endpoint is refused"),
            (#"{"issuer":"https://id.example.com"}"#, "no token_endpoint"),
            (#"{"issuer":"https://id.example.com","token_endpoint":"https://id.example.com/t","jwks_uri":7}"#, "unusable jwks_uri"),
            (#"{"issuer":"https://id.example.com","token_endpoint":"https://id.example.com/t","jwks_uri":null}"#, "unusable jwks_uri"),
            (#"{"issuer":["https://id.example.com"],"token_endpoint":"https://id.example.com/t"}"#, "names no issuer"),
            (
                #"{"issuer":"https://evil.example.com","issuer":"https://id.example.com","token_endpoint":"https://id.example.com/t"}"#,
                "names the issuer"
            ),
            (#"["https://id.example.com"]"#, "not a JSON object"),
            (#"{"issuer":"https://id.example.com","token_endpoint":"https://id.example.com/t\u001b[2J"}"#, "unusable token_endpoint"),
            (#"{"issuer":"https://id.example.com","token_endpoint":"https://id.example.com\\@evil.example/t"}"#, "unusable token_endpoint"),
        ]
        for (document, why) in documents {
            let transport = FakeTransport { _ in Reply(status: 200, body: Array(document.utf8)) }
            do {
                _ = try await ProviderMetadata.discover(issuer: "https://id.example.com", transport: transport, timeout: .seconds(5))
                Issue.record("accepted: \(document)")
            } catch {
                #expect(error.description.contains(why), "\(error)")
            }
        }
        let redirecting = FakeTransport { _ in Reply(status: 302, headers: [("Location", "https://evil.example.com/")]) }
        await #expect {
            try await ProviderMetadata.discover(issuer: "https://id.example.com", transport: redirecting, timeout: .seconds(5))
        } throws: {
            sameCase($0, as: AuthError.configuration("")) && "\($0)".contains("(HTTP 302)")
        }
        #expect(redirecting.requests.all.allSatisfy { $0.url.host == "id.example.com" }, "a redirect is not followed")
    }

    @Test("PKCE: 43-character verifier, S256 challenge (RFC 7636 appendix B), fresh values each time")
    func pkce() {
        #expect(
            AuthorizationSecrets.challenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        let first = AuthorizationSecrets()
        let second = AuthorizationSecrets()
        #expect(first.codeVerifier.count == 43 && first.state.count == 43 && first.nonce.count == 43)
        #expect(first.codeVerifier != second.codeVerifier && first.state != second.state)
        #expect(AuthorizationSecrets.challenge(for: first.codeVerifier) == first.codeChallenge)
    }

    @Test("$BROWSER: ':'-separated commands, %s replaced, else the URL appended; xdg-open only with a display")
    func browserCommands() {
        let url = "http://127.0.0.1:1/x"
        #expect(
            BrowserLauncher(environment: ["BROWSER": "w3m:firefox --new-tab %s"]).commands(for: url) == [
                ["w3m", url], ["firefox", "--new-tab", url],
            ])
        #expect(BrowserLauncher(environment: ["DISPLAY": ":0"]).commands(for: url) == [["xdg-open", url]])
        #expect(BrowserLauncher(environment: ["WAYLAND_DISPLAY": "wayland-0"]).commands(for: url) == [["xdg-open", url]])
        #expect(BrowserLauncher(environment: [:]).commands(for: url).isEmpty)
        #expect(BrowserLauncher(environment: ["BROWSER": "/nonexistent/browser"]).open(url) == nil)
        let passed = BrowserLauncher.browserEnvironment([
            "VAULT_PASSPHRASE": "p", "VAULT_FILE": "/f", "CREDENTIALS_DIRECTORY": "/run/c", "DISPLAY": ":0", "HOME": "/h",
        ])
        #expect(passed == ["DISPLAY": ":0", "HOME": "/h"], "no VAULT_* variable and no systemd credentials reach the browser")
    }

    @Test("the authorization URL keeps the endpoint's own query and carries every PKCE parameter")
    func requestURL() throws {
        let settings = LoginSettings(
            provider: .oauth2, serverURL: "https://api.example.com", tokenURL: "https://id.example.com/t", clientID: "c", grant: .authorizationCode,
            scope: "openid email")
        let provider = try OAuth2Provider(settings: settings, transport: FakeTransport { _ in Reply(status: 500) })
        let signIn = try BrowserSignIn(
            provider: provider, authorizationURL: URL(string: "https://id.example.com/authorize?p=B2C_1")!, openIDConnect: true)
        let secrets = AuthorizationSecrets()
        let url = signIn.requestURL(secrets, redirectURI: "http://127.0.0.1:5/callback")
        let items = Dictionary(
            uniqueKeysWithValues: (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        #expect(items["p"] == "B2C_1" && items["response_type"] == "code" && items["client_id"] == "c")
        #expect(items["redirect_uri"] == "http://127.0.0.1:5/callback" && items["state"] == secrets.state)
        #expect(items["code_challenge"] == secrets.codeChallenge && items["code_challenge_method"] == "S256")
        #expect(items["nonce"] == secrets.nonce && items["scope"] == "openid email")
        #expect(!url.absoluteString.contains(secrets.codeVerifier), "the verifier never goes to the browser")
        #expect {
            try BrowserSignIn(provider: provider, authorizationURL: URL(string: "http://id.example.com/authorize")!, openIDConnect: true)
        } throws: {
            sameCase($0, as: AuthError.invalidRequest(""))
        }
    }

    @Test("an error redirect is read as a form: + is a space, percent escapes decoded")
    func errorRedirect() async throws {
        let (listener, cookie) = try await Self.startedListener(state: "s-2")
        let port = listener.port
        let request =
            "GET /callback?error=access_denied&error_description=the+user+said%20no&state=s-2 HTTP/1.1\r\n"
            + "Host: 127.0.0.1:\(port)\r\nCookie: \(cookie)\r\nConnection: close\r\n\r\n"
        #expect(try RawSocket.exchange(port: port, request).hasPrefix("HTTP/1.1 200"))
        #expect(try await listener.callback(timeout: .seconds(30)) == .error(code: "access_denied", description: "the user said no"))
        await listener.close()
    }

    @Test("the listener: a duplicated state, a missing Host, a POST are refused; the right redirect is taken once")
    func listener() async throws {
        let (listener, cookie) = try await Self.startedListener(state: "s-1")
        let port = listener.port
        func get(_ target: String, host: String? = nil, method: String = "GET") throws -> String {
            let request =
                "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nCookie: \(cookie)\r\nConnection: close\r\n\r\n"
            return try RawSocket.exchange(port: port, request)
        }
        #expect(try get("/callback?code=c&state=s-1&state=s-1").hasPrefix("HTTP/1.1 400"))
        #expect(try get("/callback?code=c&state=s-1", host: "localhost:\(port)").hasPrefix("HTTP/1.1 400"))
        #expect(try get("/callback?code=c&state=s-1", method: "POST").hasPrefix("HTTP/1.1 404"))
        #expect(try get("/callback/../callback?code=c&state=s-1").hasPrefix("HTTP/1.1 404"))
        #expect(try get("/start/not-the-token").hasPrefix("HTTP/1.1 404"), "a wrong start token is ignored")
        let twoHosts = "GET /callback?code=c&state=s-1 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nHost: evil.example\r\nConnection: close\r\n\r\n"
        #expect(try RawSocket.exchange(port: port, twoHosts).hasPrefix("HTTP/1.1 400"))
        let taken = try get("/callback?code=the-code&state=s-1")
        #expect(taken.hasPrefix("HTTP/1.1 200"))
        #expect(taken.contains("\r\nSet-Cookie: vault_signin_\(port)=; Max-Age=0;"), "the cookie is dropped: \(taken)")
        #expect(try get("/callback?code=other&state=s-1").hasPrefix("HTTP/1.1 400"), "only once")
        #expect(try await listener.callback(timeout: .seconds(30)) == .code("the-code"))
        await listener.close()
        // Closed: the connection is refused. (Tests run side by side, and another one may have
        // bound the freed port by now; then whatever answers is not this listener.)
        if let after = try? get("/callback?code=c&state=s-1") {
            #expect(!after.hasPrefix("HTTP/1.1 200") && !after.hasPrefix("HTTP/1.1 400"), "a closed listener answered: \(after)")
        }
    }

    @Test("the start link: a 302 to the authorization URL with a one-time HttpOnly, SameSite=Lax cookie; a second fetch ends the sign-in")
    func startLink() async throws {
        let listener = try await LoopbackRedirectListener.start(state: "s-3", authorizationURL: Self.authorizationURL)
        let port = listener.port
        let link = listener.startURL
        #expect(link.absoluteString.hasPrefix("http://127.0.0.1:\(port)/start/") && link.lastPathComponent.count == 43)
        let first = try Self.fetch(link, port: port)
        #expect(first.hasPrefix("HTTP/1.1 302"), "\(first)")
        #expect(first.contains("\r\nLocation: \(Self.authorizationURL(listener.redirectURI).absoluteString)\r\n"), "\(first)")
        let cookie = try #require(
            first.firstMatch(of: #/\r\nSet-Cookie: (vault_signin_[0-9]+=[A-Za-z0-9_-]{43}); HttpOnly; SameSite=Lax; Path=\/\r\n/#))
        #expect(cookie.1.hasPrefix("vault_signin_\(port)="))
        #expect(first.contains("\r\nReferrer-Policy: no-referrer\r\n"), "the link does not travel to the provider as a Referer")
        let second = try Self.fetch(link, port: port)
        #expect(second.hasPrefix("HTTP/1.1 403") && second.contains("Another program used this sign-in link"), "\(second)")
        // A library caller that names nothing gets pages that name no program.
        #expect(second.contains("so this program stopped the sign-in and stored nothing. Start the sign-in again."), "\(second)")
        #expect(!second.contains("vault login"), "\(second)")
        await #expect { try await listener.callback(timeout: .seconds(30)) } throws: { sameCase($0, as: AuthError.authentication("")) }
        do {
            _ = try await listener.callback(timeout: .seconds(30))
        } catch {
            #expect(error.description.contains("another program used the sign-in link"), "\(error)")
        }
        await listener.close()
    }

    @Test("a redirect without the link's cookie (before the link was fetched, or with another value) ends the sign-in")
    func callbackNeedsTheCookie() async throws {
        for cookie in [nil, "vault_signin_PORT=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"] {
            let listener = try await LoopbackRedirectListener.start(state: "s-4", authorizationURL: Self.authorizationURL)
            let port = listener.port
            if cookie != nil { #expect(try Self.fetch(listener.startURL, port: port).hasPrefix("HTTP/1.1 302")) }
            let header = cookie.map { "Cookie: \($0.replacingOccurrences(of: "PORT", with: String(port)))\r\n" } ?? ""
            let request = "GET /callback?code=c&state=s-4 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(header)Connection: close\r\n\r\n"
            #expect(try RawSocket.exchange(port: port, request).hasPrefix("HTTP/1.1 403"))
            do {
                let taken = try await listener.callback(timeout: .seconds(30))
                Issue.record("a redirect without the cookie was taken: \(taken)")
            } catch {
                #expect(error.description.contains("another program used the sign-in link"), "\(error)")
            }
            await listener.close()
        }
    }

    @Test("connections of another uid get nothing, are reported once, and the listener goes on waiting")
    func otherUsersAreRefused() async throws {
        let refusals = Recorder<RefusedConnection>()
        let me = UInt32(geteuid())
        let listener = try await LoopbackRedirectListener.start(
            state: "s-5", authorizationURL: Self.authorizationURL, refused: { refusals.append($0) },
            owner: me &+ 1)
        let port = listener.port
        for _ in 0..<3 {
            #expect(try Self.fetch(listener.startURL, port: port) == "", "no answer at all")
        }
        #expect(await eventually { !refusals.all.isEmpty })
        #expect(refusals.all == [RefusedConnection(uid: me)], "one report for the owner")
        do {
            _ = try await listener.callback(timeout: .milliseconds(300))
            Issue.record("a refused connection ended the wait")
        } catch {
            #expect(error.description.contains("no sign-in arrived"), "\(error)")
        }
        await listener.close()
    }

    @Test("the owner of a loopback client socket, by sock_diag: IPv4, IPv6, a dual-stack client; none once closed or unknown")
    func peerOwnerLookup() throws {
        let me = UInt32(geteuid())
        for (family, server) in [(AF_INET, "127.0.0.1"), (AF_INET6, "::1")] {
            let connection = try LoopbackConnection(family: family, host: server)
            defer { connection.close() }
            #expect(connection.owner() == me, "\(server): the client's socket is this process's")
            #expect(connection.owner(serverPort: connection.serverPort &+ 1) == nil, "\(server): no such connection")
        }
        // A dual-stack (AF_INET6) client socket connected to 127.0.0.1 is found by the IPv4 lookup.
        let mapped = try LoopbackConnection(family: AF_INET, host: "127.0.0.1", clientFamily: AF_INET6)
        defer { mapped.close() }
        #expect(mapped.owner() == me)
        // After the client's close the socket is in TIME_WAIT (shown as root's): unknown, not root.
        let closing = try LoopbackConnection(family: AF_INET, host: "127.0.0.1")
        closing.closeClientFirst()
        #expect(closing.owner() == nil)
        closing.close()
    }

    /// Attack review 58: vault running unmapped in a user namespace is the overflow uid, and
    /// so is any user the kernel cannot map there: that owner is unknown, never vault itself.
    @Test("a socket of the overflow uid has no known owner, whoever vault is")
    func overflowOwnerIsUnknown() async throws {
        try #require(getuid() == 0, "needs root to run a client as the overflow uid")
        let overflow = LoopbackPeerOwner.overflowUID
        let program = """
            import socket, time
            server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(1)
            client = socket.create_connection(server.getsockname())
            print(client.getsockname()[1], server.getsockname()[1], flush=True)
            time.sleep(60)
            """
        let child = try ChildProcess(
            "/usr/bin/setpriv", ["--reuid=\(overflow)", "--regid=\(overflow)", "--clear-groups", "/usr/bin/python3", "-c", program])
        defer { child.kill() }
        let line = try #require(try await child.waitForOutput(timeout: 60, until: { $0.hasSuffix("\n") }))
        let ports = line.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        try #require(ports.count == 2, "\(line)")
        let loopback = inet_addr("127.0.0.1")
        let found = LoopbackPeerOwner.uid(client: (loopback, ports[0]), server: (loopback, ports[1]))
        guard case .unknown(let reason?) = found else {
            Issue.record("the overflow uid's socket gave \(found)")
            return
        }
        #expect(reason.contains("overflow uid \(overflow)"), "\(reason)")
        #expect(RefusedConnection(uid: nil, reason: reason).description.hasPrefix("a process whose owner could not be determined: "))
    }

    static func authorizationURL(_ redirectURI: String) -> URL {
        QueryString.appending([("redirect_uri", redirectURI), ("state", "s")], to: URL(string: "https://id.example.com/authorize")!)
    }

    /// `GET` of `url` (a loopback URL) as raw HTTP; the whole answer, or "" when the connection is closed unanswered.
    static func fetch(_ url: URL, port: Int) throws -> String {
        try RawSocket.exchange(port: port, "GET \(url.path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
    }

    /// A listener for `state` whose start link was fetched, and the cookie (`name=value`) it set.
    static func startedListener(state: String) async throws -> (LoopbackRedirectListener, String) {
        let listener = try await LoopbackRedirectListener.start(state: state, authorizationURL: authorizationURL)
        let answer = try fetch(listener.startURL, port: listener.port)
        let cookie = try #require(answer.firstMatch(of: #/\r\nSet-Cookie: ([^;\r]+)/#), "\(answer)")
        return (listener, String(cookie.1))
    }
}

extension SignInPartsTests {
    @Test("a sign-in's tokens are stored under the account's refresh lock: a refresh under way finishes first")
    func adoptTakesTheRefreshLock() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-lock-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = InMemoryStore()
        let session = AuthSession(
            store: store, server: "https://api.example.com", account: "a",
            transport: FakeTransport { _ in Reply(status: 500) }, configuration: .init(lock: .directory(directory)))
        let held = try await RefreshLock.acquire(
            path: RefreshLock.path(directory: directory, server: "https://api.example.com", account: "a"), timeout: .seconds(5))
        let tokens = TokenSet(
            accessToken: Secret("access"), accessTokenExpiry: Date().addingTimeInterval(60), refreshToken: nil, refreshTokenExpiry: nil,
            obtainedAt: Date())
        let settings = LoginSettings(provider: .oauth2, serverURL: "https://api.example.com", tokenURL: "https://id.example.com/t", clientID: "c")
        let adopting = Task { try await session.adopt(tokens, settings: settings) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await session.items.loadTokens() == nil, "nothing stored while the lock is held")
        withExtendedLifetime(held) {}
        _ = consume held
        try await adopting.value
        // (Compared by token: a Date's last bits may not survive the stored JSON.)
        #expect(try await session.items.loadTokens()?.accessToken == tokens.accessToken)
    }
}

@Suite("What the second attack review found", .offThePool)
struct SecondReviewTests {
    static let settings: LoginSettings = {
        var settings = LoginSettings(
            provider: .oidc, serverURL: "https://api.example.com", tokenURL: "https://id.example.com/token", clientID: "c",
            grant: .authorizationCode, scope: "openid")
        settings.issuer = "https://id.example.com"
        settings.jwksURL = "https://id.example.com/jwks"
        return settings
    }()

    static func tokenResponse(_ extra: String) -> Reply {
        Reply(
            status: 200,
            body: Array(#"{"access_token":"a2","token_type":"Bearer","expires_in":60,"refresh_token":"r2"\#(extra)}"#.utf8))
    }

    @Test("a refresh whose id_token is malformed or oversized keeps the rotated tokens and the earlier ID token")
    func malformedRefreshIDToken() async throws {
        let previous = TokenSet(
            accessToken: Secret("a1"), accessTokenExpiry: Date(), refreshToken: Secret("r1"), refreshTokenExpiry: nil,
            obtainedAt: Date(), idToken: Secret("earlier.id.token"))
        for extra in [#","id_token":"\#(String(repeating: "x", count: 17_000))""#, #","id_token":42"#, #","id_token":"a b""#] {
            let transport = FakeTransport { _ in Self.tokenResponse(extra) }
            let provider = try OAuth2Provider(settings: Self.settings, transport: transport)
            let refreshed = try await provider.refresh(previous)
            #expect(refreshed.refreshToken == Secret("r2") && refreshed.idToken == Secret("earlier.id.token"))
        }
    }

    @Test("an OpenID Connect code exchange without an ID token is refused; the device grant's is accepted")
    func codeExchangeNeedsAnIDToken() async throws {
        let provider = try OAuth2Provider(settings: Self.settings, transport: FakeTransport { _ in Self.tokenResponse("") })
        await #expect {
            try await provider.exchange(code: "c", verifier: "v", redirectURI: "http://127.0.0.1:1/callback", nonce: "n")
        } throws: {
            sameCase($0, as: AuthError.authentication("")) && "\($0)".contains("ID token")
        }
        let device = try await provider.tokenRequest([("grant_type", "device_code")], previous: nil)
        #expect(device.idToken == nil)
    }

    @Test("Retry-After from a server is escaped and cut short in messages")
    func retryAfterEscaped() {
        // Leniently: a transport that passes an escape byte through (AsyncHTTPTransport turns it into a space).
        let retryAfter = HTTPField(name: .retryAfter, lenientValue: Array(("\u{1b}[31m" + String(repeating: "9", count: 100)).utf8))
        let message = OAuth2Provider.classify(HTTPResponse(status: .serviceUnavailable, headerFields: HTTPFields([retryAfter])), body: []).description
        #expect(!message.contains("\u{1b}") && message.count < 200, "\(message)")
    }

    @Test("parameters are added to an endpoint's own query without re-encoding it; + in a value is escaped")
    func queryString() throws {
        let url = try #require(URL(string: "https://id.example.com/logout?p=a%2Bb&x=1+2"))
        let result = QueryString.appending([("client_id", "a+b c"), ("id_token_hint", "x.y.z")], to: url).absoluteString
        #expect(result == "https://id.example.com/logout?p=a%2Bb&x=1+2&client_id=a%2Bb%20c&id_token_hint=x.y.z")
    }

    /// The inode of the socket listening on 127.0.0.1:`port` (`/proc/net/tcp`), nil if none.
    static func listeningSocketInode(port: Int) throws -> String? {
        let table = try String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)
        let local = "0100007F:" + String(format: "%04X", port)
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            if fields.count > 9, fields[1] == local, fields[3] == "0A" { return String(fields[9]) }
        }
        return nil
    }

    // Not "no socket at all": the tests of this process run side by side, and a socket
    // another test opened without close-on-exec can be open at that moment; vault's own
    // listener and its event loops' descriptors are what the browser must never get.
    @Test("the browser inherits neither the listener's socket nor an event loop's descriptor")
    func browserGetsNoSockets() async throws {
        let listener = try await LoopbackRedirectListener.start(state: "s", authorizationURL: SignInPartsTests.authorizationURL)
        let inode = try #require(try Self.listeningSocketInode(port: listener.port), "the listener is in /proc/net/tcp")
        let ours = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
            .compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
        #expect(ours.contains("socket:[\(inode)]"), "the inode found is this process's listening socket")
        defer { Task { await listener.close() } }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-fds-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = "\(directory)/browser"
        try "#!/bin/sh\nls -l /proc/$$/fd > \(directory)/fds.tmp 2>&1; mv \(directory)/fds.tmp \(directory)/fds\n"
            .write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o700)
        #expect(BrowserLauncher(environment: ["BROWSER": script, "PATH": "/usr/bin:/bin"]).open("http://127.0.0.1:1/x") != nil)
        #expect(await eventually { FileManager.default.fileExists(atPath: "\(directory)/fds") })
        let listing = try String(contentsOfFile: "\(directory)/fds", encoding: .utf8)
        #expect(!listing.contains("socket:[\(inode)]") && !listing.contains("anon_inode"), "\(listing)")
    }
}

extension SecondReviewTests {
    @Test("a refresh under way when the account logs out does not store tokens back: it fails, the store stays empty")
    func logoutWinsOverARefresh() async throws {
        try await withLiveServer(accessTTL: 1) { live in
            try await withTemporaryDirectory("vault-logout-race") { dir in
                let store = fileStore("\(dir)/v.db")
                let account = live.account(in: store)
                try await live.login(into: account)
                let requester = Requester(
                    account: account, provider: live.provider(), transport: live.transport,
                    configuration: .init(lock: .directory("\(dir)/locks")))
                #expect(try await requester.send(live.devsRequest).response.status == 200)
                try await account.removeTokens()  // what `vault logout` does, under the same lock
                let refreshesBefore = live.server.stats.refreshes  // the first send may have refreshed on a loaded machine
                try await Task.sleep(for: .milliseconds(1100))  // the held access token is now expired
                do throws(AuthError) {
                    _ = try await requester.send(live.devsRequest)
                    Issue.record("a logged-out account sent a request")
                } catch {
                    #expect(error.description.contains("logged out"), "\(error)")
                }
                #expect(try await account.loadTokens() == nil, "nothing was stored back")
                #expect(live.server.stats.refreshes == refreshesBefore, "no refresh after the logout")
            }
        }
    }
}
