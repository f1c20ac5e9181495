// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import Testing
import VaultStore
import VaultTestSupport
import VaultTesting

@testable import VaultAuth

/// The Requester's state machine pinned down with a fake transport, a fake provider and a
/// clock moved by hand: every interleaving here is deterministic.
@Suite("Requester state machine (fake transport)", .offThePool)
struct RequesterStateMachineTests {
    let resource = HTTPRequest(method: .get, url: URL(string: "https://api.example.test/things")!)

    /// A Requester over an in-memory store holding the provider's `access-0` tokens.
    struct Fixture {
        let clock = ManualClock()
        let provider: FakeProvider
        let store = InMemoryStore()
        let account: AccountItems
        let events = Recorder<RequesterEvent>()
        let initial: TokenSet

        init(lifetime: TimeInterval = 60) async throws {
            provider = FakeProvider(clock: clock, lifetime: lifetime)
            account = AccountItems(store: store, server: "https://api.example.test", account: "ann")
            initial = provider.initialTokens()
            try await account.saveTokens(initial)
        }

        func requester(_ transport: FakeTransport, lockDirectory: String? = nil, events: Recorder<RequesterEvent>? = nil) -> Requester {
            let sink = events ?? self.events
            return Requester(
                account: account, provider: provider, transport: transport, clock: clock,
                configuration: Requester.Configuration(lock: lockDirectory.map { .directory($0) } ?? .inProcessOnly),
                onEvent: { sink.append($0) })
        }

        func stored() async throws -> TokenSet? { try await account.loadTokens() }
    }

    /// A resource server that accepts only the provider's latest access token.
    static func acceptingCurrentToken(of provider: FakeProvider) -> FakeTransport {
        FakeTransport { request in
            Reply(status: bearer(of: request) == provider.currentAccessToken ? 200 : 401)
        }
    }

    @Test("a fresh token is sent as it is, without a refresh")
    func freshTokenUsed() async throws {
        let f = try await Fixture()
        let transport = Self.acceptingCurrentToken(of: f.provider)
        let requester = f.requester(transport)
        for _ in 0..<3 { #expect(try await requester.send(resource).response.status == 200) }
        #expect(f.provider.refreshCount == 0)
        #expect(transport.bearers == ["access-0", "access-0", "access-0"])
        #expect(f.events.all == [.usedToken, .usedToken, .usedToken])
    }

    @Test("held tokens taken without the actor stay exact: a token that turns stale in memory is refreshed, the new one is sent after")
    func tokensHeldInMemoryFollowTheClockAndTheRefresh() async throws {
        let f = try await Fixture()
        let transport = Self.acceptingCurrentToken(of: f.provider)
        let requester = f.requester(transport)
        #expect(try await requester.send(resource).response.status == 200)  // loads and holds access-0
        f.clock.advance(by: 55)  // the held token is stale now: no request may take it as fresh
        #expect(try await requester.send(resource).response.status == 200)
        #expect(try await requester.send(resource).response.status == 200)
        f.clock.advance(by: 61)  // and access-1 expired
        #expect(try await requester.send(resource).response.status == 200)
        #expect(transport.bearers == ["access-0", "access-1", "access-1", "access-2"])
        #expect(f.provider.refreshCount == 2)
        #expect(f.events.all == [.usedToken, .refreshed, .usedToken, .refreshed])
    }

    @Test("a stale token is refreshed before sending; the store holds the new tokens before the request goes out")
    func staleTokenRefreshedFirst() async throws {
        let f = try await Fixture()
        let storedAtSend = Recorder<String>()
        let account = f.account
        let transport = FakeTransport { request in
            let stored = try? await account.loadTokens()
            storedAtSend.append(stored?.accessToken.utf8String ?? "none")
            return Reply(status: 200)
        }
        let requester = f.requester(transport)
        f.clock.advance(by: 55)  // 5 s before expiry: within the 10 s leeway
        #expect(f.initial.freshness(at: f.clock.now()) == .stale)
        #expect(try await requester.send(resource).response.status == 200)
        #expect(f.provider.refreshCount == 1)
        #expect(f.provider.presentedRefreshTokens == ["refresh-0"])
        #expect(transport.bearers == ["access-1"])
        #expect(storedAtSend.all == ["access-1"])
        #expect(try await f.stored()?.accessToken == Secret("access-1"))
        #expect(f.events.all == [.refreshed])
    }

    @Test("an expired token is never sent: it is refreshed first")
    func expiredTokenRefreshedFirst() async throws {
        let f = try await Fixture()
        let transport = Self.acceptingCurrentToken(of: f.provider)
        let requester = f.requester(transport)
        f.clock.advance(by: 61)
        #expect(try await requester.send(resource).response.status == 200)
        #expect(transport.bearers == ["access-1"])
        #expect(f.provider.refreshCount == 1)
    }

    @Test("100 concurrent requests on a stale token: one refresh, everybody waits for it")
    func singleFlightInProcess() async throws {
        let f = try await Fixture()
        let gate = Gate()
        f.provider.hold(at: gate)
        let transport = Self.acceptingCurrentToken(of: f.provider)
        let requester = f.requester(transport)
        f.clock.advance(by: 55)
        async let results = sendConcurrently(100, resource, through: requester)
        #expect(await eventually { f.provider.refreshCount >= 1 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(transport.requests.count == 0, "nobody may send while the refresh runs")
        gate.open()
        let all = await results
        #expect(all.count == 100)
        #expect(all.allSatisfy { (try? $0.get().status) == 200 })
        #expect(f.provider.refreshCount == 1)
        #expect(Set(transport.bearers) == ["access-1"])
        #expect(f.events.count(of: .refreshed) == 1)
    }

    @Test("a cold Requester (tokens not yet loaded) under 200 concurrent requests refreshes once and keeps the new tokens")
    func coldStartStorm() async throws {
        let f = try await Fixture()
        let transport = Self.acceptingCurrentToken(of: f.provider)
        let requester = f.requester(transport)
        f.clock.advance(by: 55)
        let all = await sendConcurrently(200, resource, through: requester)
        #expect(all.allSatisfy { (try? $0.get().status) == 200 })
        #expect(f.provider.refreshCount == 1)
        #expect(f.events.count(of: .refreshed) == 1)
        // A load that began before the refresh must not put the replaced tokens back.
        #expect(f.events.count(of: .adoptedStoredTokens) == 0)
        #expect(await requester.tokenSource.heldTokens?.accessToken == Secret("access-1"))
    }

    @Test("concurrent first requests share one slow store read; the refresh's tokens are not rolled back by it")
    func slowFirstLoadIsShared() async throws {
        let clock = ManualClock()
        let provider = FakeProvider(clock: clock)
        // The first load reads the item at once but returns it only when released (at most 10 s).
        let released = DispatchSemaphore(value: 0)
        let store = FaultyStore(faults: [.init(.load, call: 1, .afterwards { _ = released.wait(timeout: .now() + 10) })])
        let account = AccountItems(store: store, server: "https://api.example.test", account: "ann")
        try await account.saveTokens(provider.initialTokens())
        clock.advance(by: 55)  // access-0 is stale
        let transport = Self.acceptingCurrentToken(of: provider)
        let events = Recorder<RequesterEvent>()
        let requester = Requester(
            account: account, provider: provider, transport: transport, clock: clock, onEvent: { events.append($0) })

        // The first store read (access-0) is held while 50 requests arrive.
        async let results = sendConcurrently(50, resource, through: requester)
        #expect(await eventually { store.calls(.load) == 1 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(store.calls(.load) == 1, "the other requests must wait for the read under way")
        released.signal()
        let all = await results
        #expect(all.allSatisfy { (try? $0.get().status) == 200 })
        #expect(provider.refreshCount == 1)
        #expect(Set(transport.bearers) == ["access-1"])
        // One first read and one re-read under the refresh; a waiter's poll for tokens another
        // process stored (every 200 ms of real time) may add reads on a busy machine.
        #expect(store.calls(.load) >= 2, "one first read, one re-read under the refresh")
        #expect(events.count(of: .adoptedStoredTokens) == 0, "\(events.all)")
        #expect(await requester.tokenSource.heldTokens?.accessToken == Secret("access-1"))
    }

    @Test("a 401 for the current token: one refresh, one replay with the new token")
    func unauthorizedCurrentToken() async throws {
        let f = try await Fixture()
        // The resource server no longer accepts access-0 (revoked), although it is fresh.
        let revoking = FakeTransport { request in Reply(status: bearer(of: request) == "access-0" ? 401 : 200) }
        let requester = f.requester(revoking)
        #expect(try await requester.send(resource).response.status == 200)
        #expect(revoking.bearers == ["access-0", "access-1"])
        #expect(f.provider.refreshCount == 1)
        #expect(f.events.all == [.usedToken, .refreshed, .replayedAfter401])
        #expect(try await f.stored()?.accessToken == Secret("access-1"))
    }

    @Test("a 401 for a token that was replaced meanwhile is replayed with the new token, without a refresh")
    func unauthorizedReplacedToken() async throws {
        let f = try await Fixture()
        let gate = Gate()
        let provider = f.provider
        let transport = FakeTransport { request in
            if request.url.path == "/slow" { await gate.wait() }
            // Judged when answering: by then only the latest token is good.
            return Reply(status: bearer(of: request) == provider.currentAccessToken ? 200 : 401)
        }
        let requester = f.requester(transport)
        var slow = resource
        slow.url = URL(string: "https://api.example.test/slow")!

        // A leaves with access-0 and is held by the server.
        async let a = requester.send(slow)
        #expect(await eventually { transport.requests.count == 1 })
        // Meanwhile the token turns stale; B refreshes it and goes out with access-1.
        f.clock.advance(by: 55)
        #expect(try await requester.send(resource).response.status == 200)
        #expect(f.provider.refreshCount == 1)
        // A's 401 is for the replaced access-0: replayed with access-1, no second refresh.
        gate.open()
        #expect(try await a.response.status == 200)
        #expect(f.provider.refreshCount == 1)
        #expect(transport.bearers == ["access-0", "access-1", "access-1"])
        #expect(f.events.count(of: .replayedAfter401) == 1)
        #expect(f.events.count(of: .refreshed) == 1)
    }

    @Test("not logged in yet: the next request reads the store again, so a later login (by another process) counts")
    func aLaterLoginIsSeen() async throws {
        let f = try await Fixture()
        try await f.account.removeTokens()
        let transport = FakeTransport { _ in Reply(status: 200) }
        let requester = f.requester(transport)
        let before = await caughtError { () async throws(AuthError) in try await requester.send(resource) }
        guard case .notLoggedIn = before, before?.description.contains("not logged in") == true else {
            Issue.record("expected not logged in, got \(String(describing: before))")
            return
        }
        try await f.account.saveTokens(f.initial)
        #expect(try await requester.send(resource).response.status == 200)
        #expect(transport.bearers == ["access-0"])
    }

    @Test("refreshes that fail (the auth server answers 503) issue no token: they never fill the refresh window")
    func failedRefreshesDoNotCountInTheWindow() async throws {
        let f = try await Fixture()
        f.provider.fail(with: .server(status: 503, message: "maintenance"))
        let transport = FakeTransport { _ in Reply(status: 401) }
        let requester = f.requester(transport)
        for attempt in 0..<5 {
            let error = await caughtError { () async throws(AuthError) in try await requester.send(resource) }
            guard case .server(let status, _)? = error else {
                Issue.record("attempt \(attempt): expected the 503, got \(String(describing: error))")
                return
            }
            #expect(status == 503 && error?.isTransient == true)
        }
        #expect(f.provider.refreshCount == 5, "every request tried its refresh")
    }

    @Test("a resource that rejects every new token: at most the refresh window's refreshes, then .excessiveRefresh")
    func refreshStormIsBounded() async throws {
        let f = try await Fixture()
        // Not the auth server's 401: a downstream service that rejects any token.
        let transport = FakeTransport { _ in Reply(status: 401) }
        let requester = f.requester(transport)
        var errors: [AuthError] = []
        for _ in 0..<10 {
            if let error = await caughtError({ () async throws(AuthError) in try await requester.send(resource) }) {
                errors.append(error)
            }
        }
        #expect(errors.count == 10, "every request fails")
        #expect(f.provider.refreshCount == 3, "the default window allows 3 refreshes a minute: \(f.provider.refreshCount)")
        let storms = errors.filter { if case .excessiveRefresh = $0 { true } else { false } }
        #expect(storms.count == 7, "\(errors)")
        #expect(storms.first?.description.contains("rejected 3 new access tokens") == true, "\(storms)")
        // The window slides on the monotonic clock; a provider may also say what a
        // rejection is: with one that never sees one, no refresh is spent at all.
        let patient = Requester(
            account: f.account, provider: NeverRejecting(base: f.provider), transport: transport, clock: f.clock,
            configuration: .init(lock: .inProcessOnly))
        #expect(try await patient.send(resource).response.status == 401)
        #expect(f.provider.refreshCount == 3)
    }

    @Test("a 401 that persists: at most one refresh and one replay, then .authentication")
    func persistentUnauthorized() async throws {
        let f = try await Fixture()
        let transport = FakeTransport { _ in
            Reply(status: 401, body: Array(#"{"code":401,"message":"invalid access token"}"#.utf8))
        }
        let requester = f.requester(transport)
        let error = await caughtError { () async throws(AuthError) in try await requester.send(resource) }
        guard case .authentication = error else {
            Issue.record("expected .authentication, got \(String(describing: error))")
            return
        }
        #expect(transport.requests.count == 2)
        #expect(transport.bearers == ["access-0", "access-1"])
        #expect(f.provider.refreshCount == 1)
        #expect(f.events.count(of: .replayedAfter401) == 1)
    }

    @Test("50 concurrent requests that all get a 401 for the same token cause one refresh")
    func concurrentUnauthorizedSameToken() async throws {
        let f = try await Fixture()
        let gate = Gate()
        let transport = FakeTransport { request in
            if bearer(of: request) == "access-0" {
                await gate.wait()
                return Reply(status: 401)
            }
            return Reply(status: 200)
        }
        let requester = f.requester(transport)
        async let results = sendConcurrently(50, resource, through: requester)
        #expect(await eventually { transport.requests.count == 50 })
        gate.open()
        let all = await results
        #expect(all.allSatisfy { (try? $0.get().status) == 200 })
        #expect(f.provider.refreshCount == 1)
        #expect(transport.requests.count == 100)
        #expect(transport.bearers.filter { $0 == "access-1" }.count == 50)
    }

    @Test(
        "a stale token whose refresh fails transiently is still used; the store is unchanged",
        arguments: [AuthError.server(status: 500, message: "down"), .network("timed out"), .server(status: 200, message: "not JSON")])
    func staleTokenUsedWhenRefreshFailsTransiently(failure: AuthError) async throws {
        let f = try await Fixture()
        f.provider.fail(with: failure)
        let transport = FakeTransport { _ in Reply(status: 200) }
        let requester = f.requester(transport)
        f.clock.advance(by: 55)
        #expect(try await requester.send(resource).response.status == 200)
        #expect(transport.bearers == ["access-0"])
        #expect(f.provider.refreshCount == 1)
        #expect(try await f.stored() == f.initial)
    }

    @Test("an expired token whose refresh fails transiently: the error, nothing sent, the store unchanged")
    func expiredTokenTransientFailure() async throws {
        let f = try await Fixture()
        f.provider.fail(with: .server(status: 503, message: "maintenance"))
        let transport = FakeTransport { _ in Reply(status: 200) }
        let requester = f.requester(transport)
        f.clock.advance(by: 120)
        let error = await caughtError { () async throws(AuthError) in try await requester.send(resource) }
        #expect(error == .server(status: 503, message: "maintenance"))
        #expect(error?.isTransient == true)
        #expect(transport.requests.count == 0)
        #expect(try await f.stored() == f.initial)
        // Once the server is back, the kept refresh token works.
        f.provider.fail(with: nil)
        #expect(try await requester.send(resource).response.status == 200)
        #expect(f.provider.presentedRefreshTokens == ["refresh-0", "refresh-0"])
    }

    @Test("a dead refresh token without a reauthenticator is .authentication, and the tokens are not discarded")
    func deadRefreshToken() async throws {
        let f = try await Fixture()
        f.provider.fail(with: .authentication("refresh rejected: invalid refresh token"))
        let transport = FakeTransport { _ in Reply(status: 200) }
        let requester = f.requester(transport)
        f.clock.advance(by: 120)
        let error = await caughtError { () async throws(AuthError) in try await requester.send(resource) }
        #expect(error == .authentication("refresh rejected: invalid refresh token"))
        #expect(transport.requests.count == 0)
        #expect(try await f.stored() == f.initial)
    }

    @Test("no stored tokens: .authentication whose remedy is to log in to the account, nothing sent")
    func notLoggedIn() async throws {
        let clock = ManualClock()
        let transport = FakeTransport { _ in Reply(status: 200) }
        let requester = Requester(
            account: AccountItems(store: InMemoryStore(), server: "https://api.example.test", account: "nobody"),
            provider: FakeProvider(clock: clock), transport: transport, clock: clock)
        let error = await caughtError { () async throws(AuthError) in try await requester.send(resource) }
        guard case .notLoggedIn(let server, let account, let nearby) = error else {
            Issue.record("expected .notLoggedIn, got \(String(describing: error))")
            return
        }
        #expect(server == "https://api.example.test" && account == "nobody" && nearby.isEmpty)
        #expect(error?.description == "not logged in to https://api.example.test as nobody")
        #expect(error?.remedy == .logIn(server: "https://api.example.test", account: "nobody"))
        #expect(transport.requests.count == 0)
    }

    @Test("plain http to a remote host is refused before any token is used")
    func plainHTTPRefused() async throws {
        let f = try await Fixture()
        let transport = FakeTransport { _ in Reply(status: 200) }
        let requester = f.requester(transport)
        let error = await caughtError { () async throws(AuthError) in
            try await requester.send(HTTPRequest(url: URL(string: "http://api.example.test/things")!))
        }
        guard case .invalidRequest = error else {
            Issue.record("expected .invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(transport.requests.count == 0)
    }

    @Test("two Requesters sharing a store and a lock directory: one refresh, the other adopts the stored tokens")
    func crossProcessSingleFlightWithFakes() async throws {
        try await withTemporaryDirectory("vaultauth") { directory in
            let f = try await Fixture()
            let transport = Self.acceptingCurrentToken(of: f.provider)
            let eventsA = Recorder<RequesterEvent>()
            let eventsB = Recorder<RequesterEvent>()
            let a = f.requester(transport, lockDirectory: directory, events: eventsA)
            let b = f.requester(transport, lockDirectory: directory, events: eventsB)
            // Both hold access-0 in memory.
            #expect(try await a.send(resource).response.status == 200)
            #expect(try await b.send(resource).response.status == 200)

            f.clock.advance(by: 55)
            let gate = Gate()
            f.provider.hold(at: gate)
            async let first = a.send(resource)
            #expect(await eventually { f.provider.refreshCount == 1 })  // A holds the lock, refreshing
            async let second = b.send(resource)  // B waits for the lock
            try await Task.sleep(for: .milliseconds(100))
            gate.open()
            #expect(try await first.response.status == 200)
            #expect(try await second.response.status == 200)
            #expect(f.provider.refreshCount == 1)
            #expect(eventsA.count(of: .refreshed) == 1)
            #expect(eventsB.count(of: .adoptedStoredTokens) == 1)
            #expect(eventsB.count(of: .refreshed) == 0)
            #expect(await b.tokenSource.heldTokens?.accessToken == Secret("access-1"))
            #expect(Array(transport.bearers.suffix(2)) == ["access-1", "access-1"])
        }
    }
}

/// A provider whose resource never signals a rejected token (its 401s are downstream).
private struct NeverRejecting: AuthProvider {
    let base: FakeProvider
    var name: String { "never-rejecting" }
    func login(account: String, password: Secret?) async throws(AuthError) -> TokenSet {
        try await base.login(account: account, password: password)
    }
    func refresh(_ tokens: TokenSet) async throws(AuthError) -> TokenSet { try await base.refresh(tokens) }
    func rejectsToken(_ response: HTTPResponse) -> Bool { false }
}
