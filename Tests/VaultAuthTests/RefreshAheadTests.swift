// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultTestSupport
import VaultTesting

@testable import VaultAuth

/// `TokenSource.refreshAhead()`, what an agent calls to keep an account alive: a refresh
/// of a token that is still fresh, through the same single flight, lock and adoption as a
/// refresh at expiry. Fake provider, clock moved by hand.
@Suite("TokenSource.refreshAhead (fakes)", .offThePool)
struct RefreshAheadTests {
    struct Fixture {
        let clock = ManualClock()
        let provider: FakeProvider
        let store = InMemoryStore()
        let account: AccountItems
        let initial: TokenSet

        init() async throws {
            provider = FakeProvider(clock: clock, lifetime: 60)
            account = AccountItems(store: store, server: "https://api.example.test", account: "ann")
            initial = provider.initialTokens()
            try await account.saveTokens(initial)
        }

        func source(
            lockDirectory: String? = nil, reauthenticator: (any Reauthenticating)? = nil, events: Recorder<RequesterEvent> = Recorder()
        ) -> TokenSource {
            TokenSource(
                account: account, provider: provider, clock: clock,
                configuration: Requester.Configuration(lock: lockDirectory.map { .directory($0) } ?? .inProcessOnly),
                reauthenticator: reauthenticator, onEvent: { events.append($0) })
        }
    }

    @Test("a fresh token is refreshed at once; the store holds the new tokens and later calls get them")
    func refreshesAFreshToken() async throws {
        let f = try await Fixture()
        let events = Recorder<RequesterEvent>()
        let source = f.source(events: events)
        #expect(try await source.accessToken() == Secret("access-0"))
        let new = try await source.refreshAhead()
        #expect(new.accessToken == Secret("access-1"))
        #expect(f.provider.refreshCount == 1)
        #expect(try await f.account.loadTokens()?.accessToken == Secret("access-1"))
        #expect(try await source.accessToken() == Secret("access-1"))
        #expect(f.provider.refreshCount == 1)
        #expect(events.count(of: .refreshed) == 1)
    }

    @Test("a cold source reads the store first, then refreshes once")
    func coldSourceLoadsFirst() async throws {
        let f = try await Fixture()
        let new = try await f.source().refreshAhead()
        #expect(new.accessToken == Secret("access-1"))
        #expect(f.provider.presentedRefreshTokens == ["refresh-0"])
    }

    @Test("50 concurrent refreshAhead calls share one refresh")
    func concurrentCallsShareOneFlight() async throws {
        let f = try await Fixture()
        let source = f.source()
        _ = try await source.token()
        let gate = Gate()
        f.provider.hold(at: gate)
        let results = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<50 {
                group.addTask { (try? await source.refreshAhead())?.accessToken.utf8String }
            }
            #expect(await eventually { f.provider.refreshCount == 1 })
            try? await Task.sleep(for: .milliseconds(50))
            gate.open()
            var all: [String?] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 50)
        #expect(Set(results) == ["access-1"])
        #expect(f.provider.refreshCount == 1)
    }

    @Test("another source already stored newer fresh tokens: they are adopted, no second refresh")
    func adoptsWhatAnotherSourceStored() async throws {
        try await withTemporaryDirectory("refresh-ahead") { directory in
            let f = try await Fixture()
            let eventsA = Recorder<RequesterEvent>()
            let eventsB = Recorder<RequesterEvent>()
            let a = f.source(lockDirectory: directory, events: eventsA)
            let b = f.source(lockDirectory: directory, events: eventsB)
            _ = try await a.token()
            _ = try await b.token()  // both hold access-0
            f.clock.advance(by: 45)
            #expect(try await a.refreshAhead().accessToken == Secret("access-1"))
            #expect(try await b.refreshAhead().accessToken == Secret("access-1"))
            #expect(f.provider.refreshCount == 1)
            #expect(eventsB.count(of: .adoptedStoredTokens) == 1)
            #expect(eventsB.count(of: .refreshed) == 0)
            #expect(try await b.accessToken() == Secret("access-1"))
        }
    }

    @Test("a transient failure is thrown and changes nothing held or stored")
    func transientFailureKeepsTheTokens() async throws {
        let f = try await Fixture()
        let source = f.source()
        _ = try await source.token()
        f.provider.fail(with: .server(status: 503, message: "down"))
        let error = await caughtError { () async throws(AuthError) in try await source.refreshAhead() }
        #expect(error == .server(status: 503, message: "down"))
        #expect(try await f.account.loadTokens()?.accessToken == Secret("access-0"))
        f.provider.fail(with: nil)
        #expect(try await source.accessToken() == Secret("access-0"), "the fresh token is still served")
        #expect(try await source.refreshAhead().accessToken == Secret("access-1"))
    }

    @Test("a dead refresh token leads to the silent re-login, once")
    func deadRefreshTokenLogsInAgain() async throws {
        let f = try await Fixture()
        try await f.account.savePassword(Secret("pw"))
        let events = Recorder<RequesterEvent>()
        let source = f.source(reauthenticator: SilentReauthenticator(clock: f.clock), events: events)
        f.provider.fail(with: .authentication("refresh rejected: invalid refresh token"))
        let new = try await source.refreshAhead()
        #expect(new.accessToken == Secret("access-1"))
        #expect(f.provider.loginCount == 1)
        #expect(events.count(of: .loggedInAgain) == 1)
        #expect(try await f.account.loadTokens()?.accessToken == Secret("access-1"))
    }

    @Test("not logged in: .notLoggedIn with the log-in remedy, nothing asked of the provider")
    func notLoggedIn() async throws {
        let f = try await Fixture()
        try await f.account.removeTokens()
        let error = await caughtError { () async throws(AuthError) in try await f.source().refreshAhead() }
        #expect(error == .notLoggedIn(server: "https://api.example.test", account: "ann"))
        #expect(error?.remedy == .logIn(server: "https://api.example.test", account: "ann"))
        #expect(f.provider.refreshCount == 0)
    }
}
