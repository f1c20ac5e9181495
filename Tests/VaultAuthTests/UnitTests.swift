// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import Testing
import VaultStore
import VaultTestSupport
import VaultTesting

@testable import VaultAuth

@Suite("TokenSet freshness and leeway", .offThePool)
struct TokenSetTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    func tokens(lifetime: TimeInterval, refreshExpiry: Date?? = .none) -> TokenSet {
        TokenSet(
            accessToken: Secret("a"), accessTokenExpiry: start.addingTimeInterval(lifetime),
            refreshToken: Secret("r"), refreshTokenExpiry: refreshExpiry ?? start.addingTimeInterval(3600),
            obtainedAt: start)
    }

    @Test("a long-lived token: fresh, stale within the 10 s default leeway, expired at expiry")
    func longLived() {
        let set = tokens(lifetime: 3600)
        #expect(set.freshness(at: start) == .fresh)
        #expect(set.freshness(at: start.addingTimeInterval(3589.9)) == .fresh)
        #expect(set.freshness(at: start.addingTimeInterval(3590)) == .stale)
        #expect(set.freshness(at: start.addingTimeInterval(3599.9)) == .stale)
        #expect(set.freshness(at: start.addingTimeInterval(3600)) == .expired)
        #expect(set.freshness(at: start.addingTimeInterval(7200)) == .expired)
    }

    @Test("a short-lived token: the leeway is capped at half the lifetime")
    func shortLived() {
        let set = tokens(lifetime: 2)  // leeway min(10, 1) = 1
        #expect(set.freshness(at: start.addingTimeInterval(0.5)) == .fresh)
        #expect(set.freshness(at: start.addingTimeInterval(0.99)) == .fresh)
        #expect(set.freshness(at: start.addingTimeInterval(1.0)) == .stale)
        #expect(set.freshness(at: start.addingTimeInterval(1.99)) == .stale)
        #expect(set.freshness(at: start.addingTimeInterval(2)) == .expired)

        let twenty = tokens(lifetime: 20)  // exactly at the boundary: leeway 10 either way
        #expect(twenty.freshness(at: start.addingTimeInterval(9.99)) == .fresh)
        #expect(twenty.freshness(at: start.addingTimeInterval(10)) == .stale)
    }

    @Test("a custom leeway, a zero leeway, and an expiry before the time obtained")
    func otherLeeways() {
        let set = tokens(lifetime: 600)
        #expect(set.freshness(at: start.addingTimeInterval(539), leeway: 60) == .fresh)
        #expect(set.freshness(at: start.addingTimeInterval(540), leeway: 60) == .stale)
        #expect(set.freshness(at: start.addingTimeInterval(599.99), leeway: 0) == .fresh)
        #expect(set.freshness(at: start.addingTimeInterval(600), leeway: 0) == .expired)

        let odd = tokens(lifetime: -5)
        #expect(odd.freshness(at: start.addingTimeInterval(-6)) == .fresh)
        #expect(odd.freshness(at: start) == .expired)
    }

    @Test("canRefresh: needs a refresh token that has not expired")
    func canRefresh() {
        #expect(tokens(lifetime: 60).canRefresh(at: start))
        #expect(!tokens(lifetime: 60).canRefresh(at: start.addingTimeInterval(3600)))
        #expect(tokens(lifetime: 60, refreshExpiry: .some(nil)).canRefresh(at: start.addingTimeInterval(1e6)))
        var none = tokens(lifetime: 60)
        none.refreshToken = nil
        #expect(!none.canRefresh(at: start))
    }

    @Test("the stored form round-trips and a damaged one reads as none")
    func storedForm() {
        let set = tokens(lifetime: 60)
        #expect(TokenSet(encoded: set.encoded()) == set)
        var partial = set
        partial.refreshToken = nil
        partial.refreshTokenExpiry = nil
        #expect(TokenSet(encoded: partial.encoded()) == partial)
        #expect(TokenSet(encoded: Secret("not json")) == nil)
    }

    @Test("description shows expiries, never the tokens")
    func description() {
        let set = TokenSet(
            accessToken: Secret("ACCESS-SECRET-123"), accessTokenExpiry: start, refreshToken: Secret("REFRESH-SECRET-456"),
            refreshTokenExpiry: start, obtainedAt: start)
        var dumped = ""
        dump(set, to: &dumped)
        for text in [String(describing: set), String(reflecting: set), dumped, "\(Optional(set) as Any)"] {
            #expect(!text.contains("ACCESS-SECRET"))
            #expect(!text.contains("REFRESH-SECRET"))
        }
        #expect(String(describing: set).contains("redacted"))
    }
}

@Suite("ClockSkew", .offThePool)
struct ClockSkewTests {
    // Sun, 06 Nov 1994 08:49:37 GMT
    let serverTime = Date(timeIntervalSince1970: 784_111_777)
    let header = "Sun, 06 Nov 1994 08:49:37 GMT"

    @Test("the HTTP date parses")
    func parses() {
        #expect(HTTPDate.parse(header) == serverTime)
        #expect(HTTPDate.parse("yesterday") == nil)
    }

    @Test("local clock ten minutes ahead: server times move ahead onto the local clock")
    func localAhead() throws {
        let skew = ClockSkew.measure(dateHeader: header, receivedAt: serverTime.addingTimeInterval(600))
        #expect(abs(skew.offset - -599.5) < 0.01)
        let expiry = serverTime.addingTimeInterval(60)
        #expect(abs(skew.local(expiry).timeIntervalSince(expiry.addingTimeInterval(600))) <= 1)
    }

    @Test("local clock ten minutes behind")
    func localBehind() {
        let skew = ClockSkew.measure(dateHeader: header, receivedAt: serverTime.addingTimeInterval(-600))
        #expect(abs(skew.offset - 600.5) < 0.01)
        let expiry = serverTime.addingTimeInterval(60)
        #expect(abs(skew.local(expiry).timeIntervalSince(expiry.addingTimeInterval(-600))) <= 1)
    }

    @Test("within the header's one-second resolution, no header, or a bad one: no correction")
    func noCorrection() {
        #expect(ClockSkew.measure(dateHeader: header, receivedAt: serverTime) == .none)
        #expect(ClockSkew.measure(dateHeader: header, receivedAt: serverTime.addingTimeInterval(1.2)) == .none)
        #expect(ClockSkew.measure(dateHeader: header, receivedAt: serverTime.addingTimeInterval(-0.9)) == .none)
        #expect(ClockSkew.measure(dateHeader: nil, receivedAt: serverTime) == .none)
        #expect(ClockSkew.measure(dateHeader: "garbage", receivedAt: serverTime) == .none)
        #expect(ClockSkew.none.local(serverTime) == serverTime)
    }

    @Test("ShiftedClock is the system clock moved by its offset")
    func shiftedClock() {
        let shifted = ShiftedClock(offset: -600).now().timeIntervalSince(Date())
        #expect(abs(shifted - -600) < 5)
    }
}

@Suite("URLPolicy and redirects", .offThePool)
struct URLPolicyTests {
    func allowed(_ text: String) -> Bool {
        do throws(AuthError) {
            try URLPolicy.check(URL(string: text)!)
            return true
        } catch {
            return false
        }
    }

    func refusal(_ text: String) -> AuthError? {
        do throws(AuthError) {
            try URLPolicy.check(URL(string: text)!)
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "plain http to a non-loopback host is refused with .invalidRequest",
        arguments: [
            "http://example.com/api", "http://10.0.0.1:8080/", "http://192.168.1.10/", "http://127.0.0.1.nip.io/",
            "http://localhost.example.com/", "http://[2001:db8::1]/", "http://0x7f.0.0.1/", "ftp://127.0.0.1/x",
            // Ports outside 1...65535 (swift-nio trapped on 70000 for an IP host: attack review 43).
            "http://127.0.0.1:70000/x", "https://127.0.0.1:65536/", "https://example.com:0/", "https://example.com:999999/",
        ])
    func refused(url: String) {
        guard case .invalidRequest = refusal(url) else {
            Issue.record("\(url) should be refused, got \(String(describing: refusal(url)))")
            return
        }
    }

    @Test(
        "http to loopback and https anywhere are allowed",
        arguments: [
            "http://127.0.0.1:8080/api", "http://127.1.2.3/", "http://[::1]:9000/x", "http://localhost/",
            "http://LOCALHOST:80/", "https://example.com/api", "https://10.0.0.1/", "https://example.com:65535/", "https://example.com:/x",
            "https://[::1]:443/",
        ])
    func allowedURLs(url: String) {
        #expect(allowed(url), "\(url)")
    }

    /// Foundation's `user` and `password` are the *decoded* parts, nil when they do not
    /// decode (`%aa` is no UTF-8): such a URL still hides its host behind user info (found
    /// by the device-authorization fuzz target in a fresh-clone CI run).
    @Test(
        "user info is refused, even when it does not percent-decode",
        arguments: [
            "https://accounts.example.com@evil.example/device", "https://u:p@example.com/", "https://@example.com/",
            "https://good%aaexample.com@evil.example/device", "https://a:%ff@evil.example/", "http://%zz@127.0.0.1/",
        ])
    func userInfoRefused(url: String) {
        guard case .invalidRequest(let why, _) = refusal(url) else {
            Issue.record("\(url) should be refused, got \(String(describing: refusal(url)))")
            return
        }
        #expect(why.contains("user info"), "\(why)")
    }

    @Test("the refusal message carries no user info or query")
    func redactedMessage() {
        let error = refusal("http://user:hunter2@example.com/x?token=abc")
        #expect(error != nil)
        #expect(!(error?.description.contains("hunter2") ?? true))
        #expect(!(error?.description.contains("abc") ?? true))
    }

    /// What the user meant as a URL may not parse, and its user info or query may still be
    /// a secret: every "not a URL" message shows it through `redacted(text:)` (an attack review found them echoed).
    @Test(
        "a text that is not a URL loses its user info and query in messages",
        arguments: [
            ("https://user:hunter2@", "https://…@"), ("user:hunter2@host/x", "…@host/x"),
            ("https://u:hunter2?@h/p?q=hunter2", "https://…@h/p"), ("https://h/a#hunter2", "https://h/a"),
            ("https://h/?next=https://u:hunter2@e", "https://…@e"), ("https://h/\u{1B}[2J", "https://h/\\x1b[2J"),
            // Attack review 47: a later `://` does not start the authority.
            ("alice:hunter2@auth.example.com/token?next=https://x", "…@auth.example.com/token"),
            ("alice:hunter2@https://auth.example.com/token", "…@https://auth.example.com/token"),
        ])
    func redactedText(text: String, shown: String) {
        let redacted = URLPolicy.redacted(text: text)
        #expect(!redacted.contains("hunter2"), "\(redacted)")
        #expect(redacted == shown, "\(redacted)")
    }

    @Test("a URL without a host loses what looks like user info in a refusal")
    func redactedURLWithoutHost() {
        let error = refusal("h:alice:hunter2@x")
        #expect(error != nil && !(error?.description.contains("hunter2") ?? true), "\(String(describing: error))")
    }

    @Test("a long text is cut to 200 characters in messages")
    func redactedLongText() {
        let redacted = URLPolicy.redacted(text: "https://example.com/" + String(repeating: "a", count: 5000))
        #expect(redacted.count == 201 && redacted.hasSuffix("…"), "\(redacted.count)")
    }

    let post = FakeTransport.Sent(
        request: HTTPRequest(
            method: .post, url: URL(string: "https://api.example.com/submit")!,
            headerFields: FakeTransport.fields([
                ("Authorization", "Bearer secret"), ("Cookie", "s=1"), ("Content-Type", "application/json"), ("X-Other", "1"),
            ])),
        body: Array("{}".utf8))
    let get = FakeTransport.Sent(
        request: HTTPRequest(
            url: URL(string: "https://api.example.com/list")!,
            headerFields: FakeTransport.fields([
                ("Authorization", "Bearer secret"), ("Cookie", "s=1"), ("Proxy-Authorization", "Basic x"), ("X-Other", "1"),
                ("X-Api-Key", "k-1"), ("accept", "application/json"), ("Accept-Language", "en"), ("User-Agent", "vault"),
            ])),
        body: nil)

    /// The request `RedirectRule` sends after a `status` redirect to `location` answered `sent`.
    func hop(_ sent: FakeTransport.Sent, _ status: Int, _ location: String) throws(AuthError) -> FakeTransport.Sent? {
        let redirect = Reply(status: status, headers: [("Location", location)]).response
        return try RedirectRule.next(after: sent.request, body: sent.body, response: redirect).map {
            FakeTransport.Sent(request: $0.request, body: $0.body)
        }
    }

    @Test(
        "a cross-origin redirect of a GET drops every header but Accept, Accept-Language, Content-Type and User-Agent",
        arguments: ["https://evil.example.net/x", "https://api.example.com:8443/x", "//evil.example.net/x"],
        [301, 302, 303, 307, 308])
    func crossOrigin(target: String, status: Int) throws {
        let next = try #require(try hop(get, status, target))
        #expect(!URLPolicy.sameOrigin(next.url, get.url))
        #expect(next.header("Authorization") == nil)
        #expect(next.header("Proxy-Authorization") == nil)
        #expect(next.header("Cookie") == nil)
        #expect(next.header("X-Other") == nil && next.header("X-Api-Key") == nil, "a caller's own headers may carry keys")
        #expect(next.header("Accept") == "application/json" && next.header("Accept-Language") == "en")
        #expect(next.header("User-Agent") == "vault")
    }

    @Test("a same-origin redirect keeps the caller's headers")
    func sameOriginKeepsHeaders() throws {
        let next = try #require(try hop(get, 302, "/elsewhere"))
        #expect(next.header("X-Api-Key") == "k-1" && next.header("X-Other") == "1" && next.header("Authorization") == "Bearer secret")
    }

    @Test("a 307/308 never re-sends a body to another origin", arguments: [307, 308])
    func noBodyToAnotherOrigin(status: Int) {
        #expect { try hop(post, status, "https://evil.example.net/collect") } throws: {
            sameCase($0, as: AuthError.server(status: 0, message: "")) && "\($0)".contains("does not re-send a request body")
        }
    }

    @Test("a redirect to plain http on a remote host is refused", arguments: [301, 302, 303, 307, 308])
    func noDowngrade(status: Int) {
        #expect { try hop(get, status, "http://api.example.com/list") } throws: {
            sameCase($0, as: AuthError.server(status: 0, message: "")) && "\($0)".contains("refusing its redirect")
        }
    }

    @Test("a same-origin redirect keeps Authorization and the body (307/308)")
    func sameOrigin() throws {
        for target in ["https://api.example.com/other", "https://API.example.com:443/other", "/other"] {
            let next = try #require(try hop(post, 308, target))
            #expect(next.header("Authorization") == "Bearer secret", "\(target)")
            #expect(next.method == "POST")
            #expect(next.body == Array("{}".utf8))
        }
    }

    @Test("303 turns into a GET without a body (so do 301/302 after a POST)", arguments: [303, 302, 301])
    func seeOther(status: Int) throws {
        let next = try #require(try hop(post, status, "https://api.example.com/result"))
        #expect(next.method == "GET")
        #expect(next.body == nil)
        #expect(next.header("Content-Type") == nil)
        #expect(next.header("Authorization") == "Bearer secret")
    }

    @Test("a 303 to another origin after a POST is followed as a GET, without the token")
    func seeOtherElsewhere() throws {
        let next = try #require(try hop(post, 303, "https://elsewhere.example/done"))
        #expect(next.method == "GET" && next.body == nil)
        #expect(next.header("Authorization") == nil)
    }

    @Test("not a redirect: no Location, or another status")
    func notRedirects() throws {
        #expect(try RedirectRule.next(after: get.request, body: nil, response: HTTPResponse(status: .found)) == nil)
        #expect(try hop(get, 304, "https://api.example.com/x") == nil)
        #expect(try hop(get, 300, "https://api.example.com/x") == nil)
    }

    @Test("sameOrigin compares scheme, host and effective port")
    func sameOriginRule() {
        func same(_ a: String, _ b: String) -> Bool { URLPolicy.sameOrigin(URL(string: a)!, URL(string: b)!) }
        #expect(same("https://a.example/x", "https://A.EXAMPLE:443/y"))
        #expect(same("http://127.0.0.1/x", "http://127.0.0.1:80/y"))
        #expect(!same("https://a.example/x", "http://a.example/x"))
        #expect(!same("https://a.example/x", "https://b.example/x"))
        #expect(!same("http://127.0.0.1:8080/x", "http://127.0.0.1:8081/x"))
    }
}

@Suite("AuthError and the provider's classification", .offThePool)
struct AuthErrorTests {
    @Test("transient: network, 5xx, 429, 408 and a garbled success reply; not auth, 4xx or configuration")
    func transient() {
        #expect(AuthError.network("x").isTransient)
        #expect(AuthError.server(status: 500, message: "x").isTransient)
        #expect(AuthError.server(status: 503, message: "x").isTransient)
        #expect(AuthError.server(status: 429, message: "x").isTransient)
        #expect(AuthError.server(status: 200, message: "not JSON").isTransient)
        #expect(!AuthError.server(status: 400, message: "x").isTransient)
        #expect(!AuthError.authentication("x").isTransient)
        #expect(!AuthError.configuration("x").isTransient)
        #expect(!AuthError.invalidRequest("x").isTransient)
    }

    func classify(_ status: Int, _ message: String?, what: String) -> AuthError {
        let body = message.map { #"{"code":\#(status),"message":"\#($0)"}"# } ?? "<html>oops</html>"
        return ReferenceAPIProvider.classify(HTTPResponse(status: .init(code: status)), body: Array(body.utf8), what: what)
    }

    @Test("the reference API's answers are classified")
    func classification() {
        #expect(
            classify(401, "invalid refresh token", what: "refresh")
                == .authentication("refresh rejected: invalid refresh token"))
        #expect(
            classify(400, "wrong login or password", what: "login")
                == .authentication("login rejected: wrong login or password"))
        #expect(classify(500, "internal server error", what: "refresh").isTransient)
        let html = classify(502, nil, what: "refresh")
        #expect(html == .server(status: 502, message: "refresh failed: no error message"))
        #expect(!classify(400, "bad request", what: "login").isTransient)
    }

    @Test("the provider turns a garbled 200 into a transient .server error and 500 into .server(500)")
    func providerOverFakeTransport() async {
        let clock = ManualClock()
        let replies = Recorder<Int>()
        let transport = FakeTransport { _ in
            replies.append(1)
            return replies.count == 1
                ? Reply(status: 200, body: Array("not json".utf8))
                : Reply(status: 500, body: Array(#"{"code":500,"message":"internal server error"}"#.utf8))
        }
        let provider = ReferenceAPIProvider(baseURL: URL(string: "https://auth.example.test")!, transport: transport, clock: clock)
        let tokens = TokenSet(
            accessToken: Secret("a"), accessTokenExpiry: clock.now(), refreshToken: Secret("r"), refreshTokenExpiry: nil,
            obtainedAt: clock.now())
        let garbled = await caughtError { () async throws(AuthError) in try await provider.refresh(tokens) }
        let failed = await caughtError { () async throws(AuthError) in try await provider.refresh(tokens) }
        #expect(garbled?.isTransient == true, "\(String(describing: garbled))")
        #expect(failed == .server(status: 500, message: "refresh failed: internal server error"))
        #expect(transport.requests.all.map(\.url.path) == ["/api/refresh_tokens", "/api/refresh_tokens"])
        #expect(transport.requests.all.first?.header("Authorization") == "Bearer r")
    }

    @Test("the provider corrects expiries by the Date header's skew")
    func providerSkew() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 784_111_777 + 600))  // ten minutes ahead
        let transport = FakeTransport { _ in
            let body = #"{"accessToken":"A","accessTokenExpire":784111837000,"refreshToken":"R","refreshTokenExpire":784112077000}"#
            return Reply(status: 200, headers: [("Date", "Sun, 06 Nov 1994 08:49:37 GMT")], body: Array(body.utf8))
        }
        let provider = ReferenceAPIProvider(baseURL: URL(string: "https://auth.example.test")!, transport: transport, clock: clock)
        let tokens = try await provider.login(account: "ann", password: Secret("pw"))
        // 60 s of access lifetime and 300 s of refresh lifetime, on the local clock.
        #expect(abs(tokens.accessTokenExpiry.timeIntervalSince(clock.now()) - 60) <= 1)
        #expect(abs((tokens.refreshTokenExpiry?.timeIntervalSince(clock.now()) ?? 0) - 300) <= 1)
        #expect(tokens.freshness(at: clock.now()) == .fresh)
        let body = try #require(transport.requests.all.first?.body)
        let sent = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: String])
        #expect(sent == ["login": "ann", "password": "pw"])
    }

    @Test("reference API answers: a refresh token or expiry of another type is absent; a missing or quoted access expiry is refused")
    func providerFieldTypes() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_000))
        func login(_ body: String, status: Int = 200) async -> Result<TokenSet, AuthError> {
            let transport = FakeTransport { _ in Reply(status: status, body: Array(body.utf8)) }
            let provider = ReferenceAPIProvider(baseURL: URL(string: "https://auth.example.test")!, transport: transport, clock: clock)
            do throws(AuthError) { return .success(try await provider.login(account: "ann", password: Secret("pw"))) } catch {
                return .failure(error)
            }
        }
        for body in [
            #"{"accessToken":"A","accessTokenExpire":1e300}"#, #"{"accessToken":"A","accessTokenExpire":-1e300}"#,
            #"{"accessToken":"A","accessTokenExpire":1060000,"refreshToken":"R","refreshTokenExpire":1e300}"#,
        ] {
            guard case .failure(.server(200, _)) = await login(body) else {
                Issue.record("accepted an expiry past year 9999: \(body)")
                continue
            }
        }
        let past = try await login(#"{"accessToken":"A","accessTokenExpire":-5000}"#).get()
        #expect(past.accessTokenExpiry == Date(timeIntervalSince1970: -5), "an expiry in the past is an expired token, not an error")
        let odd = try await login(#"{"accessToken":"A","accessTokenExpire":1060000,"refreshToken":7,"refreshTokenExpire":"9"}"#).get()
        #expect(odd.refreshToken == nil && odd.refreshTokenExpiry == nil)
        #expect(odd.accessTokenExpiry == Date(timeIntervalSince1970: 1_060))
        for body in [
            #"{"accessToken":"A"}"#, #"{"accessToken":"A","accessTokenExpire":"1060000"}"#, #"{"accessToken":"","accessTokenExpire":1}"#, "[]",
        ] {
            guard case .failure(.server(200, _)) = await login(body) else {
                Issue.record("accepted \(body)")
                continue
            }
        }
        guard case .failure(.authentication(let message, _, _)) = await login(#"{"message":"wrong login or password"}"#, status: 400) else {
            Issue.record("a known message of a 400 is not an authentication error")
            return
        }
        #expect(message.contains("wrong login or password"))
        guard case .failure(.server(400, let other)) = await login(#"{"message":["wrong login or password"]}"#, status: 400) else {
            Issue.record("a message that is not a string was read as one")
            return
        }
        #expect(other.contains("no error message"))
    }
}

@Suite("durations in messages", .offThePool) struct WordedDurationTests {
    @Test("a bound reads as given: milliseconds below 1 s, tenths below 10 s, whole seconds above, one second singular")
    func worded() {
        #expect(Duration.seconds(3).worded == "3 seconds")
        #expect((Duration.seconds(3) - .nanoseconds(5_138)).worded == "3 seconds", "what is left of a 3-s bound")
        #expect(Duration.milliseconds(2_500).worded == "2.5 seconds")
        #expect(Duration.seconds(1).worded == "1 second")
        #expect(Duration.milliseconds(45_400).worded == "45 seconds")
        #expect(Duration.seconds(300).worded == "300 seconds")
        #expect(Duration.milliseconds(40).worded == "40 ms", "below a second: milliseconds, never '0 seconds'")
        #expect(Duration.milliseconds(50).worded == "50 ms")
        #expect((Duration.seconds(1) - .nanoseconds(20_000)).worded == "1 second")
    }
}
