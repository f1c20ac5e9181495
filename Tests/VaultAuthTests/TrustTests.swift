// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import Testing
import VaultStore
import VaultTestSupport
import VaultTesting

@testable import VaultAuth

/// The rules that make vault safe to trust with a token, pinned down without a network:
/// where a token may go, what is shown, what is kept when the store fails, where the
/// cross-process lock lives.
@Suite("Trust: origins, targets, redirects, escaping, lost tokens, locks", .offThePool)
struct TrustTests {
    let base = URL(string: "http://127.0.0.1:8080/")!

    func resolved(_ target: String, base: URL? = nil) -> Result<URL, AuthError> {
        do throws(AuthError) {
            return .success(try RequestTarget.resolve(target, against: base ?? self.base))
        } catch {
            return .failure(error)
        }
    }

    /// A Requester for `ann` on https://api.example.test holding the provider's `access-0`.
    func makeRequester(
        _ transport: FakeTransport, store: any SecureStore = InMemoryStore(), lock: RefreshLock.Placement = .inProcessOnly,
        lockTimeout: Duration = .seconds(60), events: Recorder<RequesterEvent> = Recorder()
    ) async throws -> (Requester, FakeProvider, ManualClock, AccountItems) {
        let clock = ManualClock()
        let provider = FakeProvider(clock: clock)
        let account = AccountItems(store: store, server: "https://api.example.test", account: "ann")
        try await account.saveTokens(provider.initialTokens())
        let requester = Requester(
            account: account, provider: provider, transport: transport, clock: clock,
            configuration: .init(lockTimeout: lockTimeout, lock: lock), onEvent: { events.append($0) })
        return (requester, provider, clock, account)
    }

    @Test(
        "targets that name another host are refused",
        arguments: [
            "//127.0.0.1:9999/x", "///127.0.0.1:9999/x", "/\\127.0.0.1:9999/x", "\\\\127.0.0.1:9999/x",
            "http://127.0.0.1:9999/x", "http://127.0.0.1:8080@127.0.0.1:9999/x", "http://u:p@127.0.0.1:8080/x",
            "http://evil.com\\@127.0.0.1:8080/x", "https://127.0.0.1:8080/x", "http://[::1]:8080/x",
            "http://localhost:8080/x", "http:/127.0.0.1:9999/x", "http:127.0.0.1:9999/x", "javascript:alert(1)",
            "/x y", "/x\r\nHost: evil", "", "http://127.0.0.1.:8080/x",
        ])
    func hostileTargets(target: String) {
        guard case .failure(.invalidRequest) = resolved(target) else {
            Issue.record("\(target.debugDescription) resolved to \(resolved(target))")
            return
        }
    }

    @Test("paths, queries and same-origin URLs resolve on the server")
    func sameOriginTargets() throws {
        let expected: [(String, String)] = [
            ("/api/get_devs", "http://127.0.0.1:8080/api/get_devs"),
            ("api/get_devs", "http://127.0.0.1:8080/api/get_devs"),
            ("/api?next=https://evil.example/x", "http://127.0.0.1:8080/api?next=https://evil.example/x"),
            ("/%2F%2F127.0.0.1:9999/x", "http://127.0.0.1:8080/%2F%2F127.0.0.1:9999/x"),
            ("/@127.0.0.1:9999", "http://127.0.0.1:8080/@127.0.0.1:9999"),
            ("HTTP://127.0.0.1:8080/x", "HTTP://127.0.0.1:8080/x"),
            ("http://127.0.0.1:08080/x", "http://127.0.0.1:08080/x"),
        ]
        for (target, url) in expected {
            #expect(try resolved(target).get().absoluteString == url, "\(target)")
        }
        let prefixed = URL(string: "https://api.example.com/v2/")!
        #expect(try resolved("/things", base: prefixed).get().absoluteString == "https://api.example.com/v2/things")
        #expect(try resolved("https://API.example.com:443/x", base: prefixed).get().host == "API.example.com")
        let v6 = URL(string: "http://[::1]:8080")!
        #expect(try resolved("http://[0:0::1]:8080/x", base: v6).get().port == 8080)
        // A fragment alone names no resource (attack review of the HTTPTypes change).
        for fragment in ["#", "#top", "#/api/x"] {
            guard case .failure(.invalidRequest(let why, _)) = resolved(fragment) else {
                Issue.record("\(fragment) was not refused")
                continue
            }
            #expect(why.contains("fragment"), "\(why)")
        }
    }

    @Test("origins: case, default ports and IPv6 spellings are one origin; anything else is another")
    func origins() {
        func origin(_ text: String) -> Origin? { Origin(URL(string: text)!) }
        #expect(origin("https://api.example.com") == origin("HTTPS://API.EXAMPLE.COM:443/x"))
        #expect(origin("http://127.0.0.1") == origin("http://127.0.0.1:80"))
        #expect(origin("http://[::1]:80") == origin("http://[0:0:0::1]/"))
        #expect(origin("https://api.example.com") != origin("https://api.example.com:8443"))
        #expect(origin("https://api.example.com") != origin("http://api.example.com"))
        #expect(origin("https://api.example.com") != origin("https://api.example.com."))
        #expect(origin("ftp://api.example.com") == nil)
        // The host as the origin rule compares it: lower case (beyond ASCII too), IPv6 canonical.
        #expect(Origin.canonicalHost("api.example.com") == "api.example.com")
        #expect(Origin.canonicalHost("API.Example.COM") == "api.example.com")
        #expect(Origin.canonicalHost("Äpi.example") == "äpi.example", "a non-ASCII capital alone")
        #expect(Origin.canonicalHost("[0:0:0::1]") == "::1")
        #expect(origin("/relative") == nil)
    }

    @Test(
        "only localhost itself, 127.0.0.0/8 and ::1 are loopback",
        arguments: [
            ("localhost", true), ("127.0.0.1", true), ("127.255.0.9", true), ("::1", true), ("[::1]", true),
            ("evil.localhost", false), ("localhost.evil.com", false), ("127.0.0.1.nip.io", false),
            ("0x7f.0.0.1", false), ("127.1", false), ("0177.0.0.1", false), ("::ffff:8.8.8.8", false),
            ("127.+1.0.1", false), ("127.0.0.-0", false), ("127.0.0.01", false), ("127.0.0.256", false), ("127.0.0.", false),
            ("127..0.1", false), ("127.0.0.1.", false), ("LOCALHOST", true), ("127.0.0.0", true), ("127.0.0.1 ", false),
            ("127.0.0.1\u{0}.evil.example", false), ("127.0.0.1\u{0}", false), ("128.0.0.1", false), ("126.255.255.255", false),
        ])
    func loopback(host: String, expected: Bool) {
        #expect(URLPolicy.isLoopback(host) == expected, "\(host)")
    }

    @Test("the Requester itself refuses another origin, for any library caller, before sending anything")
    func requesterOriginRule() async throws {
        let transport = FakeTransport { _ in Reply(status: 200) }
        let (requester, _, _, _) = try await makeRequester(transport)
        for other in [
            "https://evil.example/x", "https://api.example.test:8443/x", "http://api.example.test/x",
            "https://api.example.test@evil.example/x", "https://api.example.test.evil.example/x",
        ] {
            let error = await caughtError { () async throws(AuthError) in try await requester.send(HTTPRequest(url: URL(string: other)!)) }
            guard case .invalidRequest = error else {
                Issue.record("\(other): \(String(describing: error))")
                continue
            }
        }
        #expect(transport.requests.count == 0)
        // swift-http-types keeps scheme, host and port: a URL's user info never reaches a request.
        for same in ["https://API.example.test/x", "https://api.example.test:443/x", "https://user:pw@api.example.test/x"] {
            #expect(try await requester.send(HTTPRequest(url: URL(string: same)!)).response.status == 200)
        }
        #expect(transport.bearers == ["access-0", "access-0", "access-0"])
        #expect(transport.requests.all.last?.url.absoluteString == "https://api.example.test/x")
    }

    @Test("a redirect to another origin: no token there, and its 401 does not cost a refresh")
    func redirectedElsewhere() async throws {
        let transport = FakeTransport { request in
            request.url.host == "api.example.test"
                ? Reply(status: 302, headers: [("Location", "https://cdn.example.net/blob")])
                : Reply(status: 401)
        }
        let events = Recorder<RequesterEvent>()
        let (requester, provider, _, _) = try await makeRequester(transport, events: events)
        let (response, _) = try await requester.send(HTTPRequest(url: URL(string: "https://api.example.test/file")!))
        #expect(response.status == 401)
        #expect(transport.bearers == ["access-0", nil])
        #expect(provider.refreshCount == 0)
        #expect(events.all == [.usedToken, .followedRedirectWithoutToken])
    }

    @Test("a redirect loop ends after the hop limit")
    func redirectLoop() async throws {
        let transport = FakeTransport { _ in Reply(status: 307, headers: [("Location", "/again")]) }
        let (requester, _, _, _) = try await makeRequester(transport)
        let error = await caughtError { () async throws(AuthError) in
            try await requester.send(HTTPRequest(url: URL(string: "https://api.example.test/x")!))
        }
        guard case .network = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(transport.requests.count == RedirectRule.maximumHops + 1)
    }

    @Test("tokens the store refuses are kept in memory, used, and stored on the next use; no second refresh")
    func rotatedTokensSurviveAFailingStore() async throws {
        let store = FaultyStore()
        let diskFull = FaultyStore.Fault(.save, kind: .tokens, .fail(.backendUnavailable("disk full (test)")))
        let transport = FakeTransport { request in Reply(status: bearer(of: request) == "access-1" ? 200 : 401) }
        let events = Recorder<RequesterEvent>()
        let (requester, provider, clock, account) = try await makeRequester(transport, store: store, events: events)
        clock.advance(by: 61)  // access-0 expired
        store.faults = [diskFull]
        #expect(try await requester.send(HTTPRequest(url: URL(string: "https://api.example.test/x")!)).response.status == 200)
        #expect(provider.refreshCount == 1)
        #expect(events.all.contains { if case .tokensNotSaved = $0 { true } else { false } })
        #expect(try await account.loadTokens()?.accessToken == Secret("access-0"), "the store still has the old ones")

        #expect(try await requester.send(HTTPRequest(url: URL(string: "https://api.example.test/y")!)).response.status == 200)
        #expect(try await account.loadTokens()?.accessToken == Secret("access-0"), "still failing: still in memory only")
        store.faults = []
        #expect(try await requester.send(HTTPRequest(url: URL(string: "https://api.example.test/z")!)).response.status == 200)
        #expect(try await account.loadTokens()?.accessToken == Secret("access-1"), "stored on the next use")
        #expect(provider.refreshCount == 1, "the rotated refresh token was never spent twice")
        #expect(transport.bearers == ["access-1", "access-1", "access-1"])
    }

    /// Attack review of the agent (issue 37): an agent whose save failed kept its unsaved
    /// tokens, and after `vault logout` wrote them back, logging the account in again.
    @Test("a logout while new tokens are unsaved: they are dropped, never written back, and the next use is not logged in")
    func unsavedTokensNeverUndoALogout() async throws {
        try await withTemporaryDirectory("vaultauth") { locks in
            let store = FaultyStore()
            let diskFull = FaultyStore.Fault(.save, kind: .tokens, .fail(.backendUnavailable("disk full (test)")))
            let transport = FakeTransport { request in Reply(status: bearer(of: request) == "access-1" ? 200 : 401) }
            let (requester, provider, clock, account) = try await makeRequester(transport, store: store, lock: .directory(locks))
            clock.advance(by: 61)
            store.faults = [diskFull]
            #expect(try await requester.send(HTTPRequest(url: URL(string: "https://api.example.test/x")!)).response.status == 200)
            #expect(try await account.loadTokens()?.accessToken == Secret("access-0"), "unsaved")
            try await account.removeTokens()  // vault logout
            store.faults = []
            let error = await caughtError { () async throws(AuthError) in
                try await requester.send(HTTPRequest(url: URL(string: "https://api.example.test/y")!))
            }
            guard case .notLoggedIn = error else {
                Issue.record("expected not logged in, got \(String(describing: error))")
                return
            }
            #expect(try await account.loadTokens() == nil, "the logout was undone")
            clock.advance(by: 120)  // past the access token's expiry: a refresh would need held tokens
            _ = await caughtError { () async throws(AuthError) in
                try await requester.send(HTTPRequest(url: URL(string: "https://api.example.test/z")!))
            }
            #expect(try await account.loadTokens() == nil && provider.refreshCount == 1)
            #expect(transport.bearers == ["access-1"])
        }
    }

    @Test("a new login while new tokens are unsaved: the stored tokens win, the unsaved ones are never written over them")
    func unsavedTokensYieldToANewLogin() async throws {
        let store = FaultyStore()
        let diskFull = FaultyStore.Fault(.save, kind: .tokens, .fail(.backendUnavailable("disk full (test)")))
        let transport = FakeTransport { _ in Reply(status: 200) }
        let (requester, provider, clock, account) = try await makeRequester(transport, store: store)
        clock.advance(by: 61)
        store.faults = [diskFull]
        #expect(try await requester.send(HTTPRequest(url: URL(string: "https://api.example.test/x")!)).response.status == 200)
        store.faults = []
        let login = provider.initialTokens()  // a new `vault login`, fresh now
        try await account.saveTokens(login)
        #expect(try await requester.send(HTTPRequest(url: URL(string: "https://api.example.test/y")!)).response.status == 200)
        #expect(try await account.loadTokens() == login, "the new login's tokens were overwritten")
        #expect(transport.bearers.last == login.accessToken.utf8String, "\(transport.bearers)")
        #expect(provider.refreshCount == 1)
    }

    /// Attack review 47: another process offered the refresh token this one had already
    /// spent, was refused and recorded it as dead; the agent then dropped its valid, unsaved
    /// successors as if a new login had come, and the account needed a person.
    @Test("unsaved tokens outlive another process recording their predecessor's refresh token as dead")
    func unsavedTokensOutliveAForgottenRefreshToken() async throws {
        let store = FaultyStore()
        let diskFull = FaultyStore.Fault(.save, kind: .tokens, .fail(.backendUnavailable("disk full (test)")))
        let transport = FakeTransport { request in Reply(status: bearer(of: request) == "access-1" ? 200 : 401) }
        let (requester, provider, clock, account) = try await makeRequester(transport, store: store)
        clock.advance(by: 61)
        store.faults = [diskFull]
        #expect(try await requester.send(HTTPRequest(url: URL(string: "https://api.example.test/x")!)).response.status == 200)
        store.faults = []
        // What the other process's forgetDeadRefreshToken writes: the old tokens without their refresh token.
        var dead = try #require(try await account.loadTokens())
        #expect(dead.accessToken == Secret("access-0") && dead.refreshToken != nil)
        dead.refreshToken = nil
        dead.refreshTokenExpiry = nil
        try await account.saveTokens(dead)
        #expect(try await requester.send(HTTPRequest(url: URL(string: "https://api.example.test/y")!)).response.status == 200)
        let stored = try #require(try await account.loadTokens())
        #expect(stored.accessToken == Secret("access-1") && stored.refreshToken != nil, "the successors are stored")
        #expect(provider.refreshCount == 1)
        #expect(transport.bearers == ["access-1", "access-1"])
    }

    /// Attack review 47, finding 6: the retry waited the whole lock timeout for a lock a
    /// stopped command held, and every use (and the agent's stop) waited with it.
    @Test("unsaved tokens with the account's lock held elsewhere: served at once, stored once the lock is free")
    func unsavedTokensDoNotWaitForAHeldLock() async throws {
        try await withTemporaryDirectory("vaultauth") { locks in
            let store = FaultyStore()
            let diskFull = FaultyStore.Fault(.save, kind: .tokens, .fail(.backendUnavailable("disk full (test)")))
            let transport = FakeTransport { request in Reply(status: bearer(of: request) == "access-1" ? 200 : 401) }
            // A lock timeout no test outlives: waiting for it would be a hang, which the bound below reports.
            let (requester, provider, clock, account) = try await makeRequester(
                transport, store: store, lock: .directory(locks), lockTimeout: .seconds(3600))
            clock.advance(by: 61)
            store.faults = [diskFull]
            #expect(try await requester.send(HTTPRequest(url: URL(string: "https://api.example.test/x")!)).response.status == 200)
            store.faults = []
            let other = try await FileAccountLocking(directory: locks).lock(
                server: "https://api.example.test", account: "ann", timeout: .seconds(30))
            let served = try await Self.within(seconds: 60) {
                try await requester.send(HTTPRequest(url: URL(string: "https://api.example.test/y")!)).response.status
            }
            #expect(served == 200, "served while another holds the lock")
            #expect(try await account.loadTokens()?.accessToken == Secret("access-0"), "not stored without the lock")
            await other.release()
            #expect(try await requester.send(HTTPRequest(url: URL(string: "https://api.example.test/z")!)).response.status == 200)
            #expect(try await account.loadTokens()?.accessToken == Secret("access-1"), "stored once the lock was free")
            #expect(provider.refreshCount == 1)
        }
    }

    /// `body`'s result, or nil (and an issue) when it has not finished after `seconds`:
    /// only a hang bound.
    static func within<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .seconds(Sanitizer.scaled(seconds)))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            if first == nil { Issue.record("still waiting after \(seconds) s") }
            return first
        }
    }

    @Test("stillReplaces: the same tokens, or the same without their refresh token; nothing else")
    func stillReplacesRule() {
        let now = Date(timeIntervalSince1970: 1_000)
        let old = TokenSet(
            accessToken: Secret("a0"), accessTokenExpiry: now + 60, refreshToken: Secret("r0"), refreshTokenExpiry: now + 600, obtainedAt: now)
        var forgotten = old
        forgotten.refreshToken = nil
        forgotten.refreshTokenExpiry = nil
        var other = forgotten
        other.accessToken = Secret("a9")
        #expect(TokenSource.stillReplaces(old, old))
        #expect(TokenSource.stillReplaces(nil, nil))
        #expect(TokenSource.stillReplaces(forgotten, old))
        #expect(!TokenSource.stillReplaces(nil, old), "a logout")
        #expect(!TokenSource.stillReplaces(other, old), "a new login")
        #expect(!TokenSource.stillReplaces(old, forgotten), "a refresh token that came back is another login")
    }

    @Test("the cross-process lock is on by default: beside a vault file, else per user whatever the session")
    func lockPlacement() throws {
        let memory = InMemoryStore()
        let file = EncryptedFileStore(path: "/srv/vault/vault.db", passphrase: .fixed(Secret("x")))
        #expect({ if case .automatic = Requester.Configuration().lock { true } else { false } }())
        #expect(RefreshLock.Placement.automatic.directory(for: file) == "/srv/vault")
        #expect(RefreshLock.Placement.automatic.directory(for: memory) == RefreshLock.perUserDirectory())
        #expect(RefreshLock.Placement.inProcessOnly.directory(for: memory) == nil)
        let desktop = RefreshLock.perUserDirectory(environment: [
            "HOME": "/root", "XDG_RUNTIME_DIR": "/run/user/0",
            "XDG_CACHE_HOME": "/root/.cache-desktop",
        ])
        let cron = RefreshLock.perUserDirectory(environment: ["HOME": "/root"])
        #expect(desktop == cron, "the session's variables do not move the lock")
        // VAULT_LOCK_DIR is the command's (LockDirectorySettings, StoreVariablesTests): the library reads none.
        #expect(RefreshLock.perUserDirectory(environment: ["HOME": "/root", "VAULT_LOCK_DIR": "/run/vault-locks"]) == cron)
    }

    @Test("a lock directory other users can write to is refused (exit 4) and nothing is refreshed; 0755 and a link to a private one are fine")
    func unsafeLockDirectories() async throws {
        try await withTemporaryDirectory("vaultauth") { dir in
            let open = dir + "/open"
            mkdir(open, 0o755)
            chmod(open, 0o777)
            let groupWritable = dir + "/group"
            mkdir(groupWritable, 0o755)
            chmod(groupWritable, 0o775)
            let openLink = dir + "/open-link"
            symlink(open, openLink)
            for directory in [open, groupWritable, openLink] {
                let (requester, provider, clock, _) = try await makeRequester(
                    FakeTransport { _ in Reply(status: 200) }, lock: .directory(directory))
                clock.advance(by: 61)
                let error = await caughtError { () async throws(AuthError) in
                    try await requester.send(HTTPRequest(url: URL(string: "https://api.example.test/x")!))
                }
                #expect({ if case .store(.permission) = error { true } else { false } }(), "\(directory): \(String(describing: error))")
                #expect(error?.description.contains(directory) == true)
                #expect(provider.refreshCount == 0)
            }
            // The vault directory's rule: others may read and enter, not write (one rule, PrivateDirectory).
            let readable = dir + "/readable"
            mkdir(readable, 0o755)
            chmod(readable, 0o755)
            let link = dir + "/link"
            mkdir(dir + "/real", 0o700)
            symlink(dir + "/real", link)
            for directory in [readable, link] {
                let (requester, provider, clock, _) = try await makeRequester(
                    FakeTransport { _ in Reply(status: 200) }, lock: .directory(directory))
                clock.advance(by: 61)
                let (response, _) = try await requester.send(HTTPRequest(url: URL(string: "https://api.example.test/x")!))
                #expect(response.status == 200 && provider.refreshCount == 1, "\(directory)")
            }
        }
    }

    @Test("control characters from servers and keyrings are escaped, everything else kept")
    func escaping() {
        #expect(TextEscaping.escaped("plain ümlaut 🙂 text") == "plain ümlaut 🙂 text")
        #expect(TextEscaping.escaped("a\u{1B}[31mred\u{07}") == "a\\x1b[31mred\\x07")
        #expect(TextEscaping.escaped("two\nlines\r\tx") == "two\\nlines\\r\\tx")
        #expect(TextEscaping.escaped("\u{202E}evil\u{9B}") == "\\u{202e}evil\\x9b")
        #expect(TextEscaping.escaped("back\\slash") == "back\\\\slash")
        #expect(TextEscaping.escaped("body\n\tline\u{1B}[2J\\", keepingLines: true) == "body\n\tline\\x1b[2J\\")
    }

    @Test("a Date header more than a day off is not applied; within a day it is")
    func skewBound() {
        #expect(ClockSkew(offset: 3600).offset == 3600)
        #expect(!ClockSkew(offset: -86_000).exceedsBound)
        let yearOff = ClockSkew(offset: 366 * 86_400)
        #expect(yearOff.offset == 0 && yearOff.exceedsBound && yearOff.measuredOffset == 366 * 86_400)
        let now = Date()
        #expect(yearOff.local(now) == now)
    }

    @Test("OAuth: token_type must be Bearer (any case); expires_in may be a number or digits, nothing else")
    func oauthTokenResponses() async throws {
        let cases: [(String, Bool)] = [
            (#"{"access_token":"a","token_type":"Bearer","expires_in":60}"#, true),
            (#"{"access_token":"a","token_type":"bEaReR","expires_in":"60"}"#, true),
            (#"{"access_token":"a","token_type":"bearer"}"#, true),
            (#"{"access_token":"a","token_type":"mac","expires_in":60}"#, false),
            (#"{"access_token":"a","expires_in":60}"#, false),
            (#"{"access_token":"a","token_type":"Bearer","expires_in":"soon"}"#, false),
            (#"{"access_token":"a","token_type":"Bearer","expires_in":-5}"#, false),
            (#"{"access_token":"a","token_type":"Bearer","expires_in":1e300}"#, false),
        ]
        for (body, accepted) in cases {
            let transport = FakeTransport { _ in Reply(status: 200, body: Array(body.utf8)) }
            let provider = try OAuth2Provider(
                settings: LoginSettings(
                    provider: .oauth2, serverURL: "https://api.example.test",
                    tokenURL: "https://auth.example.test/token", clientID: "c", clientSecret: Secret("s")),
                transport: transport)
            let error = await caughtError { () async throws(AuthError) in try await provider.login(account: "ann", password: Secret("pw")) }
            #expect((error == nil) == accepted, "\(body): \(String(describing: error))")
            if let error { #expect({ if case .server = error { true } else { false } }(), "\(body): \(error)") }
        }
    }

    @Test("LoginSettings never show the client secret: description, dump, and the stored form round-trips")
    func settingsRedaction() {
        let settings = LoginSettings(
            provider: .oauth2, serverURL: "https://api.example.test", tokenURL: "https://a.example/t",
            clientID: "c", clientSecret: Secret("client-secret-4d2f"))
        var dumped = ""
        dump(settings, to: &dumped)
        #expect(!dumped.contains("client-secret-4d2f"), "\(dumped)")
        #expect(!settings.description.contains("client-secret-4d2f"))
        #expect(!String(describing: settings).contains("client-secret-4d2f"))
        #expect(LoginSettings.decode(settings.encoded()) == settings)
    }
}
