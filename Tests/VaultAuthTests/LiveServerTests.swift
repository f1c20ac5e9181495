// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import HTTPTypes
import Testing
import VaultHTTPClient
import VaultStore
import VaultSync
import VaultTestSupport
import VaultTesting

@testable import VaultAuth

/// The Requester against the real reference server, in-process on 127.0.0.1 with an
/// ephemeral port. Serialized: these tests wait for tokens to turn stale or expire, and
/// the 1,000-request storm must not starve another test's timing window.
@Suite("Requester against the reference server", .serialized, .offThePool)
struct LiveServerTests {}

extension LiveServerTests {
    @Suite("Basics")
    struct Basics {
        @Test("login through ReferenceAPIProvider, then GET /api/get_devs through the Requester")
        func loginThenGetDevs() async throws {
            try await withLiveServer { live in
                let store = InMemoryStore()
                let account = live.account(in: store)
                let tokens = try await live.login(into: account)
                #expect(tokens.freshness(at: Date()) == .fresh)
                #expect(tokens.canRefresh(at: Date()))
                // The token item never answers a password lookup.
                #expect(try store.load(server: account.server, account: account.account) == nil)

                let events = Recorder<RequesterEvent>()
                let requester = Requester(
                    account: account, provider: live.provider(), transport: live.transport,
                    onEvent: { events.append($0) })
                let (response, body) = try await requester.send(live.devsRequest)
                #expect(response.status == 200)
                let developers = try #require(
                    try JSONSerialization.jsonObject(with: Data(body)) as? [[String: Any]])
                #expect(developers.count == 4)
                for developer in developers {
                    #expect(developer["id"] is NSNumber)
                    #expect(developer["name"] is String)
                    #expect(developer["department"] is String)
                }
                #expect(events.all == [.usedToken])
                let stats = live.server.stats
                #expect(stats.logins == 1 && stats.refreshes == 0 && stats.authorized == 1 && stats.unauthorized == 0)
                #expect(try await requester.tokenSource.accessToken() == tokens.accessToken)
            }
        }

        @Test("access tokens revoked on the server: 401, one refresh, one replay, 200")
        func revokedAccessToken() async throws {
            try await withLiveServer { live in
                let account = live.account(in: InMemoryStore())
                let old = try await live.login(into: account)
                let events = Recorder<RequesterEvent>()
                let requester = Requester(
                    account: account, provider: live.provider(), transport: live.transport,
                    onEvent: { events.append($0) })
                #expect(try await requester.send(live.devsRequest).response.status == 200)

                #expect(live.server.revokeAccessTokens(login: testUser))
                #expect(try await requester.send(live.devsRequest).response.status == 200)
                var stats = live.server.stats
                #expect(stats.refreshes == 1)
                #expect(stats.unauthorized == 1)
                #expect(stats.authorized == 2)
                #expect(events.count(of: .replayedAfter401) == 1)
                let stored = try #require(try await account.loadTokens())
                #expect(stored.accessToken != old.accessToken)
                #expect(stored.refreshToken != old.refreshToken)

                // The replacement is used from then on, with no further refresh.
                #expect(try await requester.send(live.devsRequest).response.status == 200)
                stats = live.server.stats
                #expect(stats.refreshes == 1 && stats.unauthorized == 1 && stats.authorized == 3)
            }
        }

        @Test("access and refresh tokens both revoked: .authentication after one refresh attempt, no loop")
        func revokedEverything() async throws {
            try await withLiveServer { live in
                let store = InMemoryStore()
                let account = live.account(in: store)
                try await live.login(into: account)
                let before = try #require(try store.load(account.tokensKey))
                let requester = Requester(account: account, provider: live.provider(), transport: live.transport)
                live.server.revokeAccessTokens(login: testUser)
                live.server.revokeRefreshTokens(login: testUser)
                let error = await caughtError { () async throws(AuthError) in try await requester.send(live.devsRequest) }
                guard case .authentication = error else {
                    Issue.record("expected .authentication, got \(String(describing: error))")
                    return
                }
                let stats = live.server.stats
                #expect(stats.unauthorized == 1)
                #expect(stats.refreshAttempts == 1)
                #expect(stats.failedRefreshes == 1)
                #expect(try store.load(account.tokensKey) == before, "the stored tokens were changed")
            }
        }
    }
}

extension LiveServerTests {
    @Suite("Single flight")
    struct SingleFlight {
        @Test("1,000 concurrent requests just after the access token turns stale: all 200, exactly one refresh")
        func thousandRequestsOneRefresh() async throws {
            // Access TTL 16 s: leeway min(10, 8) = 8 s, so the new token stays fresh for 8 s.
            // The storm takes about a second in a debug build; the new token must outlive it
            // even on a loaded machine (a run beside four builds took over 2 s), or a late
            // request would rightly refresh a second time.
            try await withLiveServer(accessTTL: 16) { live in
                let account = live.account(in: InMemoryStore())
                let old = try await live.login(into: account)
                let events = Recorder<RequesterEvent>()
                let requester = Requester(
                    account: account, provider: live.provider(), transport: live.transport,
                    onEvent: { events.append($0) })
                #expect(try await requester.send(live.devsRequest).response.status == 200)  // loads the tokens, fresh
                #expect(live.server.stats.refreshes == 0)

                try await sleep(until: staleMoment(of: old))
                try #require(old.freshness(at: Date()) == .stale, "the storm must start while the token is stale")
                let started = ContinuousClock.now
                let results = await sendConcurrently(1000, live.devsRequest, through: requester)
                let elapsed = ContinuousClock.now - started

                let failures = results.compactMap { result -> String? in
                    switch result {
                    case .success(let response): response.status == 200 ? nil : "status \(response.status)"
                    case .failure(let error): error.description
                    }
                }
                #expect(results.count == 1000)
                #expect(failures.isEmpty, "\(failures.count) failed in \(elapsed), e.g. \(failures.prefix(3))")
                let stats = live.server.stats
                #expect(stats.refreshes == 1, "storm took \(elapsed)")
                #expect(stats.refreshAttempts == 1)
                #expect(stats.authorized == 1001)
                #expect(events.count(of: .refreshed) == 1)

                let stored = try #require(try await account.loadTokens())
                #expect(stored.accessToken != old.accessToken)
                #expect(stored.refreshToken != old.refreshToken)
                #expect(sameTokens(await requester.tokenSource.heldTokens, stored))
            }
        }

        /// What a fleet does: Requesters that share a store but no machine, whose single
        /// flight is a lock of the caller's own (`RefreshLock.Placement.custom`).
        @Test("two Requesters sharing one store and a custom AccountLocking: the lock is taken, never held twice, and one refresh serves both")
        func customLockingServesBoth() async throws {
            try await withLiveServer(accessTTL: 4) { live in
                let store = InMemoryStore()
                let old = try await live.login(into: live.account(in: store))
                let locking = CountingLocking()
                func requester() -> Requester {
                    Requester(
                        account: live.account(in: store), provider: live.provider(), transport: live.transport,
                        configuration: Requester.Configuration(lock: .custom(locking)))
                }
                let a = requester()
                let b = requester()
                try await sleep(until: staleMoment(of: old))
                async let fromA = sendConcurrently(10, live.devsRequest, through: a)
                async let fromB = sendConcurrently(10, live.devsRequest, through: b)
                let results = await fromA + fromB
                #expect(results.allSatisfy { (try? $0.get().status) == 200 })
                #expect(live.server.stats.refreshes == 1 && live.server.stats.failedRefreshes == 0)
                let counts = await locking.counts
                #expect(counts.acquired >= 1 && counts.maximumHolders == 1, "\(counts)")
                #expect(counts.released == counts.acquired, "every hold was released: \(counts)")
            }
        }

        /// A fleet's lock under a lease lapses when its holder stalls past the lease: the
        /// Requester must not spend the refresh token then, but take the lock again.
        @Test("a lock that lapsed before the refresh is taken again, the store read again, and the other machine's tokens adopted")
        func aLapsedLockIsTakenAgainBeforeTheRefreshTokenIsSpent() async throws {
            try await withLiveServer(accessTTL: 4) { live in
                let store = InMemoryStore()
                let old = try await live.login(into: live.account(in: store))
                let other = Requester(
                    account: live.account(in: store), provider: live.provider(), transport: live.transport,
                    configuration: Requester.Configuration(lock: .inProcessOnly))
                // This machine reads the stale tokens under its lock, then stalls past the lease;
                // meanwhile the other machine refreshes and stores.
                // (Its second read of the tokens: the one under its lock, after the one at start.)
                let stalling = FaultyStore(
                    store,
                    faults: [
                        .init(
                            .load, kind: .tokens, call: 2,
                            .afterwards {
                                // A store call runs on a thread of its own (AccountItems
                                // offloads it to Blocking), so this wait holds no pool thread.
                                let done = DispatchSemaphore(value: 0)
                                Task.detached {
                                    _ = try? await other.send(live.devsRequest)
                                    done.signal()
                                }
                                done.wait()
                            })
                    ])
                let locking = LapsingLocking()
                let stalled = Requester(
                    account: live.account(in: stalling), provider: live.provider(), transport: live.transport,
                    configuration: Requester.Configuration(lock: .custom(locking)))
                try await sleep(until: staleMoment(of: old))
                #expect(try await stalled.send(live.devsRequest).response.status == 200)
                let stats = live.server.stats
                #expect(stats.refreshes == 1 && stats.failedRefreshes == 0, "refreshes \(stats.refreshes), failed \(stats.failedRefreshes)")
                #expect(stats.logins == 1, "no silent login: the other machine's tokens were adopted")
                #expect(locking.holds.withLock { $0 } == 2, "the lock was taken again")
                let stored = try #require(try await live.account(in: store).loadTokens())
                #expect(sameTokens(await stalled.tokenSource.heldTokens, stored))
            }
        }

        /// The write of a refresher whose lock lapsed is refused (another process wrote the
        /// item since it read it); when what the other stored is not fresh (its refresh failed),
        /// this refresh's tokens are the good ones and are stored over it, silently.
        @Test("a refused write of new tokens over stale ones stores them after a fresh read, without a warning")
        func aRefusedWriteOverStaleTokensStoresTheNewOnes() async throws {
            try await withLiveServer(accessTTL: 4) { live in
                // The first write of the tokens after the login's is refused, as an etcd store
                // refuses a write over an item another machine changed.
                let refused = FaultyStore.Fault(.save, kind: .tokens, call: 2, .fail(.conflict("the tokens were changed by another process")))
                let store = FaultyStore(faults: [refused])
                let old = try await live.login(into: live.account(in: store))
                let events = Recorder<RequesterEvent>()
                let requester = Requester(
                    account: live.account(in: store), provider: live.provider(), transport: live.transport,
                    configuration: Requester.Configuration(lock: .inProcessOnly), onEvent: { events.append($0) })
                try await sleep(until: staleMoment(of: old))
                #expect(try await requester.send(live.devsRequest).response.status == 200)
                #expect(store.triggered == 1, "the first write was refused")
                let stored = try #require(try await live.account(in: store).loadTokens())
                #expect(sameTokens(await requester.tokenSource.heldTokens, stored), "the new tokens were stored")
                #expect(stored.accessToken != old.accessToken)
                #expect(!events.all.contains { if case .tokensNotSaved = $0 { true } else { false } })
            }
        }

        @Test(
            "two Requesters on one encrypted file and lock directory (two processes): one refresh, one adopts; a new one uses the rotated tokens"
        )
        func twoProcessesShareTheRefresh() async throws {
            try await withTemporaryDirectory("vaultauth") { directory in
                let file = directory + "/vault.db"
                let locks = directory + "/locks"
                try await withLiveServer(accessTTL: 4) { live in
                    let old = try await live.login(into: live.account(in: fileStore(file)))
                    let eventsA = Recorder<RequesterEvent>()
                    let eventsB = Recorder<RequesterEvent>()
                    // Separate store instances: separate open file descriptions, like two processes.
                    func requester(_ events: Recorder<RequesterEvent>) -> Requester {
                        Requester(
                            account: live.account(in: fileStore(file)), provider: live.provider(), transport: live.transport,
                            configuration: Requester.Configuration(lock: .directory(locks)), onEvent: { events.append($0) })
                    }
                    let a = requester(eventsA)
                    let b = requester(eventsB)
                    #expect(try await a.send(live.devsRequest).response.status == 200)
                    #expect(try await b.send(live.devsRequest).response.status == 200)
                    #expect(live.server.stats.refreshes == 0)

                    try await sleep(until: staleMoment(of: old))
                    try #require(old.freshness(at: Date()) == .stale)
                    async let fromA = sendConcurrently(20, live.devsRequest, through: a)
                    async let fromB = sendConcurrently(20, live.devsRequest, through: b)
                    let results = await fromA + fromB
                    #expect(results.allSatisfy { (try? $0.get().status) == 200 })
                    var stats = live.server.stats
                    #expect(stats.refreshes == 1)
                    #expect(stats.failedRefreshes == 0, "a rotated refresh token was spent twice")
                    #expect(eventsA.count(of: .refreshed) + eventsB.count(of: .refreshed) == 1)
                    #expect(eventsA.count(of: .adoptedStoredTokens) + eventsB.count(of: .adoptedStoredTokens) == 1)

                    let stored = try #require(try await live.account(in: fileStore(file)).loadTokens())
                    #expect(stored.accessToken != old.accessToken)
                    #expect(sameTokens(await a.tokenSource.heldTokens, stored))
                    #expect(sameTokens(await b.tokenSource.heldTokens, stored))

                    // A new process after the refresh: uses the rotated tokens, no refresh, no login.
                    let eventsC = Recorder<RequesterEvent>()
                    let c = requester(eventsC)
                    #expect(try await c.send(live.devsRequest).response.status == 200)
                    stats = live.server.stats
                    #expect(stats.refreshes == 1 && stats.logins == 1 && stats.unauthorized == 0)
                    #expect(eventsC.all == [.usedToken])
                    #expect(sameTokens(await c.tokenSource.heldTokens, stored))
                }
            }
        }
    }
}

extension LiveServerTests {
    @Suite("Refresh endpoint faults")
    struct Faults {
        @Test(
            "500, garbage or a hang at the refresh endpoint: stale token still used; once expired a transient error; stored tokens kept",
            arguments: [RefreshFaultMode.status500, .garbage, .hang])
        func refreshFault(mode: RefreshFaultMode) async throws {
            try await withLiveServer(accessTTL: 5) { live in
                let store = InMemoryStore()
                let account = live.account(in: store)
                let old = try await live.login(into: account)
                let before = try #require(try store.load(account.tokensKey))
                let requester = Requester(
                    account: account, provider: live.provider(timeout: .seconds(1)), transport: live.transport)

                // Stale but unexpired: the failed refresh does not stop the request.
                try await sleep(until: staleMoment(of: old))
                live.server.faults.set(mode, hangSeconds: 20)
                #expect(try await requester.send(live.devsRequest).response.status == 200)
                var stats = live.server.stats
                #expect(stats.refreshes == 0 && stats.faultedRefreshes == 1 && stats.authorized == 1)
                #expect(try store.load(account.tokensKey) == before, "the stored tokens were changed")
                #expect(sameTokens(await requester.tokenSource.heldTokens, old))

                // Expired: the error, transient; nothing sent with the expired token.
                try await sleep(until: old.accessTokenExpiry, margin: 0.1)
                let error = await caughtError { () async throws(AuthError) in try await requester.send(live.devsRequest) }
                switch (mode, error) {
                case (.status500, .server(let status, _)?): #expect(status == 500)
                case (.garbage, .server?), (.hang, .network?): break
                default: Issue.record("\(mode): unexpected \(String(describing: error))")
                }
                #expect(error?.isTransient == true)
                stats = live.server.stats
                #expect(stats.unauthorized == 0 && stats.authorized == 1 && stats.faultedRefreshes == 2)
                #expect(try store.load(account.tokensKey) == before, "the stored tokens were changed")
                #expect(sameTokens(await requester.tokenSource.heldTokens, old))

                // The kept refresh token still works once the server recovers.
                live.server.faults.reset()
                #expect(try await requester.send(live.devsRequest).response.status == 200)
                stats = live.server.stats
                #expect(stats.refreshes == 1 && stats.failedRefreshes == 0)
                #expect(try store.load(account.tokensKey) != before)
                #expect(try await account.loadTokens()?.accessToken != old.accessToken)
            }
        }
    }
}

extension LiveServerTests {
    @Suite("Wrong local clock")
    struct WrongClock {
        @Test(
            "local clock ten minutes ahead or behind: no needless refresh, no expired token sent",
            arguments: [600.0, -600.0])
        func shiftedClock(offset: TimeInterval) async throws {
            try await withLiveServer(accessTTL: 3) { live in
                let clock = ShiftedClock(offset: offset)
                let account = live.account(in: InMemoryStore())
                let tokens = try await live.login(into: account, clock: clock)
                let loggedIn = Date()
                // The expiry is on the (wrong) local clock: about offset + 3 s from now.
                let expected = loggedIn.addingTimeInterval(offset + 3)
                #expect(abs(tokens.accessTokenExpiry.timeIntervalSince(expected)) < 2, "\(tokens)")

                let events = Recorder<RequesterEvent>()
                let requester = Requester(
                    account: account, provider: live.provider(clock: clock), transport: live.transport, clock: clock,
                    onEvent: { events.append($0) })
                for _ in 0..<3 { #expect(try await requester.send(live.devsRequest).response.status == 200) }
                var stats = live.server.stats
                #expect(stats.refreshes == 0, "needless refresh")
                #expect(events.all == [.usedToken, .usedToken, .usedToken])

                // After the token's real expiry the next request refreshes first.
                try await sleep(until: loggedIn.addingTimeInterval(3), margin: 0.2)
                #expect(try await requester.send(live.devsRequest).response.status == 200)
                stats = live.server.stats
                #expect(stats.refreshes == 1)
                #expect(stats.unauthorized == 0, "an expired token was sent")
                let refreshed = try #require(await requester.tokenSource.heldTokens)
                #expect(refreshed.freshness(at: clock.now(), leeway: 0) != .expired)
            }
        }
    }
}

extension LiveServerTests {
    @Suite("Redaction")
    struct Redaction {
        @Test("no token or password in log lines (trace level), descriptions or error messages")
        func noSecretsAnywhere() async throws {
            try await withLiveServer(accessTTL: 4) { live in
                let lines = Recorder<String>()
                let store = InMemoryStore()
                let account = live.account(in: store)
                try await account.savePassword(Secret(testPassword))
                let first = try await live.login(into: account)
                let requester = Requester(
                    account: account, provider: live.provider(timeout: .seconds(2)), transport: live.transport,
                    logger: capturingLogger(lines))

                // A 401 flow: revoked access token, refresh, replay.
                #expect(try await requester.send(live.devsRequest).response.status == 200)
                live.server.revokeAccessTokens(login: testUser)
                #expect(try await requester.send(live.devsRequest).response.status == 200)
                let second = try #require(await requester.tokenSource.heldTokens)
                // A failed refresh of a stale token, then a successful one.
                try await sleep(until: staleMoment(of: second))
                live.server.faults.set(.status500, count: 1)
                #expect(try await requester.send(live.devsRequest).response.status == 200)
                #expect(try await requester.send(live.devsRequest).response.status == 200)
                let third = try #require(await requester.tokenSource.heldTokens)
                #expect(live.server.stats.refreshes == 2)

                // Errors that pass near secrets.
                var errors: [AuthError] = []
                let wrong = "wrong-password-\(UUID().uuidString)"
                if let error = await caughtError({ () async throws(AuthError) in
                    try await live.provider().login(account: testUser, password: Secret(wrong))
                }) {
                    errors.append(error)
                }
                live.server.revokeRefreshTokens(login: testUser)
                if let error = await caughtError({ () async throws(AuthError) in try await live.provider().refresh(third) }) {
                    errors.append(error)
                }
                #expect(errors.count == 2)

                var texts = lines.all
                #expect(texts.contains { $0.contains("refreshing once") }, "the capture must see the 401 flow: \(texts)")
                #expect(texts.contains { $0.contains("refresh failed") }, "the capture must see the failed refresh: \(texts)")
                for tokens in [first, second, third] {
                    var dumped = ""
                    dump(tokens, to: &dumped)
                    texts += [
                        String(describing: tokens), String(reflecting: tokens), "\(tokens)", dumped,
                        String(describing: [tokens]), String(reflecting: Optional(tokens)),
                    ]
                }
                for error in errors { texts += [error.description, String(reflecting: error), "\(error)"] }
                for kind in ItemKind.allCases {
                    if let item = try store.load(CredentialKey(server: account.server, account: testUser, kind: kind)) {
                        var dumped = ""
                        dump(item, to: &dumped)
                        texts += [String(describing: item), String(reflecting: item), dumped]
                    }
                }

                var secrets = [testPassword, wrong]
                for tokens in [first, second, third] {
                    for secret in [tokens.accessToken, tokens.refreshToken].compactMap({ $0?.utf8String }) {
                        secrets.append(secret)
                        // The signature alone is just as secret-bearing.
                        if let signature = secret.split(separator: ".").last, signature.count >= 16 {
                            secrets.append(String(signature))
                        }
                    }
                }
                #expect(secrets.count >= 8)
                for secret in secrets {
                    let leaks = texts.filter { $0.contains(secret) }
                    #expect(leaks.isEmpty, "a secret of \(secret.count) characters leaked into: \(leaks.map { String($0.prefix(120)) })")
                }
            }
        }
    }
}

extension LiveServerTests {
    @Suite("AsyncHTTPTransport against the server")
    struct Transport {
        @Test("a response larger than maximumBodySize is a .network error naming the limit")
        func bodySizeCap() async throws {
            try await withLiveServer { live in
                let tokens = try await live.provider().login(account: testUser, password: Secret(testPassword))
                var request = live.devsRequest
                request.headerFields[.authorization] = "Bearer \(tokens.accessToken.utf8String ?? "")"
                let normal = try await live.transport.send(request, timeout: .seconds(10))
                #expect(normal.response.status == 200 && normal.body.count > 64)

                let small = AsyncHTTPTransport(maximumBodySize: 64)
                let error = await caughtError { () async throws(AuthError) in try await small.send(request, timeout: .seconds(10)) }
                await small.shutdown()
                guard case .network(let why) = error else {
                    Issue.record("expected .network, got \(String(describing: error))")
                    return
                }
                #expect(why.contains("64"))
                #expect(error?.isTransient == true)
            }
        }

        @Test("the server's answers carry a Date header (the skew correction needs it)")
        func dateHeader() async throws {
            try await withLiveServer { live in
                let (response, _) = try await live.transport.send(live.devsRequest, timeout: .seconds(10))
                #expect(response.status == 401)
                let date = try #require(response.headerFields[.date])
                let skew = ClockSkew.measure(dateHeader: date, receivedAt: Date())
                #expect(skew == .none, "server and client share a clock here: \(date)")
            }
        }

        @Test("plain http to a remote host is refused before any connection")
        func remoteHTTPRefused() async throws {
            let transport = AsyncHTTPTransport()
            let error = await caughtError { () async throws(AuthError) in
                try await transport.send(
                    HTTPRequest(url: URL(string: "http://example.com/api/get_devs")!, headerFields: [.authorization: "Bearer x"]),
                    timeout: .seconds(5))
            }
            await transport.shutdown()
            guard case .invalidRequest(let why, _) = error else {
                Issue.record("expected .invalidRequest, got \(String(describing: error))")
                return
            }
            #expect(why.contains("example.com"))
        }
    }
}

/// An in-memory AccountLocking that counts acquisitions and concurrent holders: a stand-in
/// for a fleet's lock (an etcd lease), to show the Requester uses whatever it is given.
actor CountingLocking: AccountLocking {
    private var holders = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private(set) var counts = (acquired: 0, released: 0, maximumHolders: 0)

    nonisolated func lock(server: String, account: String, timeout: Duration) async throws(VaultError) -> any AccountLockHold {
        await acquire()
        return Hold(owner: self)
    }

    private func acquire() async {
        while holders > 0 { await withCheckedContinuation { waiting.append($0) } }
        holders += 1
        counts.acquired += 1
        counts.maximumHolders = max(counts.maximumHolders, holders)
    }

    fileprivate func releaseOne() {
        holders -= 1
        counts.released += 1
        if !waiting.isEmpty { waiting.removeFirst().resume() }
    }

    final class Hold: AccountLockHold {
        private let owner: CountingLocking
        private let released = Locked(false)
        init(owner: CountingLocking) { self.owner = owner }
        func release() async {
            guard
                released.withLock({ done in
                    defer { done = true }; return !done
                })
            else { return }
            await owner.releaseOne()
        }
        deinit {
            guard
                released.withLock({ done in
                    defer { done = true }; return !done
                })
            else { return }
            let owner = owner
            Task { await owner.releaseOne() }
        }
    }
}

/// A lock whose first hold lapses (as a lease does while its holder is stalled past it):
/// that hold's `isStillHeld()` answers false.
final class LapsingLocking: AccountLocking {
    let holds = Locked(0)

    func lock(server: String, account: String, timeout: Duration) async throws(VaultError) -> any AccountLockHold {
        let number = holds.withLock { count in
            count += 1
            return count
        }
        return Hold(lapsed: number == 1)
    }

    final class Hold: AccountLockHold {
        let lapsed: Bool
        init(lapsed: Bool) { self.lapsed = lapsed }
        func release() async {}
        func isStillHeld() async -> Bool { !lapsed }
    }
}
