// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Logging
import Synchronization
import Testing
import VaultStore
import VaultTestSupport

@testable import VaultAuth

// MARK: - Small thread-safe helpers

/// A thread-safe list (events, log lines, seen requests).
final class Recorder<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])

    func append(_ element: Element) { items.withLock { $0.append(element) } }
    var all: [Element] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }
}

extension Recorder where Element: Equatable {
    func count(of element: Element) -> Int { all.filter { $0 == element }.count }
}

/// A clock the test moves by hand.
final class ManualClock: AuthClock {
    private let current: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = Mutex(start) }

    func now() -> Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    func set(_ date: Date) { current.withLock { $0 = date } }
}

/// A one-shot gate that tasks wait on (bounded: a wait gives up after `limit`).
final class Gate: Sendable {
    private let isOpen = Mutex(false)

    func open() { isOpen.withLock { $0 = true } }

    /// Returns true when the gate opened, false when `limit` passed first.
    @discardableResult
    func wait(limit: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while !isOpen.withLock({ $0 }) {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }
}

/// Polls `condition` until it holds, at most `limit`; returns whether it held.
@discardableResult
func eventually(limit: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while !(await condition()) {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// Sleeps until `clock` reads at least `date` (plus `margin`); fails the test instead of
/// sleeping for more than `limit`.
func sleep(
    until date: Date, on clock: any AuthClock = SystemClock(), margin: TimeInterval = 0.05,
    limit: TimeInterval = 20, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let interval = date.addingTimeInterval(margin).timeIntervalSince(clock.now())
    try #require(interval < limit, "refusing to sleep \(interval) s", sourceLocation: sourceLocation)
    if interval > 0 { try await Task.sleep(for: .milliseconds(Int(interval * 1000) + 1)) }
}

/// When `tokens` turn stale under `leeway` (the Requester's rule).
func staleMoment(of tokens: TokenSet, leeway: TimeInterval = TokenSet.defaultLeeway) -> Date {
    let lifetime = tokens.accessTokenExpiry.timeIntervalSince(tokens.obtainedAt)
    return tokens.accessTokenExpiry.addingTimeInterval(-min(leeway, max(0, lifetime / 2)))
}

func bearer(of request: HTTPRequest) -> String? {
    guard let value = request.header("Authorization"), value.hasPrefix("Bearer ") else { return nil }
    return String(value.dropFirst("Bearer ".count))
}

// MARK: - Fakes

/// An `HTTPTransport` answering from a closure and recording every request.
final class FakeTransport: HTTPTransport {
    typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse
    let requests = Recorder<HTTPRequest>()
    private let handler: Handler

    init(_ handler: @escaping Handler) { self.handler = handler }

    var bearers: [String?] { requests.all.map(bearer(of:)) }

    func send(_ request: HTTPRequest, timeout: Duration) async throws(AuthError) -> HTTPResponse {
        requests.append(request)
        return await handler(request)
    }
}

/// An `AuthProvider` issuing `access-N`/`refresh-N` on a clock; counts calls and can be
/// made to fail or to hold a refresh at a gate.
final class FakeProvider: AuthProvider {
    private struct State {
        var refreshes = 0
        var logins = 0
        var issued = 0
        var failure: AuthError?
        var gate: Gate?
        var presented: [String] = []
    }

    let clock: any AuthClock
    let lifetime: TimeInterval
    private let state = Mutex(State())

    init(clock: any AuthClock, lifetime: TimeInterval = 60) {
        self.clock = clock
        self.lifetime = lifetime
    }

    var name: String { "fake" }
    var refreshCount: Int { state.withLock { $0.refreshes } }
    var loginCount: Int { state.withLock { $0.logins } }
    /// The refresh tokens presented to `refresh`, in order.
    var presentedRefreshTokens: [String] { state.withLock { $0.presented } }
    /// The access token issued last ("access-0" is the initial one, see `initialTokens`).
    var currentAccessToken: String { state.withLock { "access-\($0.issued)" } }

    func fail(with error: AuthError?) { state.withLock { $0.failure = error } }
    func hold(at gate: Gate?) { state.withLock { $0.gate = gate } }

    /// The tokens of the first login: `access-0`, obtained now, `lifetime` long.
    func initialTokens() -> TokenSet { tokens(number: 0) }

    private func tokens(number: Int) -> TokenSet {
        let now = clock.now()
        return TokenSet(
            accessToken: Secret("access-\(number)"), accessTokenExpiry: now.addingTimeInterval(lifetime),
            refreshToken: Secret("refresh-\(number)"), refreshTokenExpiry: now.addingTimeInterval(3600),
            obtainedAt: now)
    }

    func login(account: String, password: Secret?) async throws(AuthError) -> TokenSet {
        let number = state.withLock {
            $0.logins += 1
            $0.issued += 1
            return $0.issued
        }
        return tokens(number: number)
    }

    func refresh(_ old: TokenSet) async throws(AuthError) -> TokenSet {
        let (gate, failure) = state.withLock {
            $0.refreshes += 1
            $0.presented.append(old.refreshToken?.utf8String ?? "")
            return ($0.gate, $0.failure)
        }
        if let gate { await gate.wait() }
        if let failure { throw failure }
        let number = state.withLock {
            $0.issued += 1
            return $0.issued
        }
        return tokens(number: number)
    }
}

/// A `LogHandler` keeping every rendered line (message, metadata, error).
struct CapturingLogHandler: LogHandler {
    let lines: Recorder<String>
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        var line = "\(event.level) \(event.message)"
        if !merged.isEmpty { line += " \(merged)" }
        if let error = event.error { line += " error=\(error) \(String(reflecting: error))" }
        lines.append(line)
    }
}

/// A logger at `.trace` whose lines land in `lines`.
func capturingLogger(_ lines: Recorder<String>, label: String = "vault.requester.test") -> Logger {
    var logger = Logger(label: label) { _ in CapturingLogHandler(lines: lines) }
    logger.logLevel = .trace
    return logger
}

// MARK: - The reference server in-process

let testUser = "alice"
let testPassword = "correct-horse-battery-staple-42"

/// A running reference server, an AsyncHTTPTransport and URLs for one test.
struct LiveServer: Sendable {
    let server: ReferenceAuthServer
    let transport: AsyncHTTPTransport
    let baseURL: URL

    var devsURL: URL { baseURL.appendingPathComponent("api/get_devs") }
    var devsRequest: HTTPRequest { HTTPRequest(method: "GET", url: devsURL) }

    func provider(clock: any AuthClock = SystemClock(), timeout: Duration = .seconds(10)) -> ReferenceAPIProvider {
        ReferenceAPIProvider(baseURL: baseURL, transport: transport, clock: clock, timeout: timeout)
    }

    func account(in store: any SecureStore) -> AccountItems {
        AccountItems(store: store, server: ServerName.normalized(baseURL.absoluteString), account: testUser)
    }

    /// Logs in with the provider and stores the tokens, as `vault login` does.
    @discardableResult
    func login(into account: AccountItems, clock: any AuthClock = SystemClock()) async throws -> TokenSet {
        let tokens = try await provider(clock: clock).login(account: testUser, password: Secret(testPassword))
        try await account.saveTokens(tokens)
        return tokens
    }
}

/// Starts the reference server on 127.0.0.1 with an ephemeral port, runs `body`, then
/// shuts the transport down and stops the server, whatever happened.
func withLiveServer<T>(
    accessTTL: Double = 60, refreshTTL: Double = 60, _ body: (LiveServer) async throws -> T
) async throws -> T {
    let configuration = AuthServerConfiguration(
        host: "127.0.0.1", port: 0, accessTokenLifetime: accessTTL, refreshTokenLifetime: refreshTTL,
        users: [CredentialPair(name: testUser, secret: testPassword)])
    return try await withReferenceServer(configuration) { running in
        let transport = AsyncHTTPTransport()
        let result: Result<T, any Error>
        do {
            let base = try #require(running.server.baseURL.flatMap(URL.init(string:)))
            result = .success(try await body(LiveServer(server: running.server, transport: transport, baseURL: base)))
        } catch {
            result = .failure(error)
        }
        await transport.shutdown()
        return try result.get()
    }
}

/// An encrypted file store with a cheap KDF, for tests.
func fileStore(_ path: String) -> EncryptedFileStore {
    EncryptedFileStore(path: path, passphrase: .fixed(Secret("x")), kdf: KDFParameters(log2N: 10))
}

/// Sends `count` copies of `request` concurrently; the statuses or errors in any order.
func sendConcurrently(_ count: Int, _ request: HTTPRequest, through requester: Requester) async -> [Result<HTTPResponse, AuthError>] {
    await withTaskGroup(of: Result<HTTPResponse, AuthError>.self) { group in
        for _ in 0..<count {
            group.addTask {
                do throws(AuthError) {
                    return .success(try await requester.send(request))
                } catch {
                    return .failure(error)
                }
            }
        }
        var results: [Result<HTTPResponse, AuthError>] = []
        for await result in group { results.append(result) }
        return results
    }
}

/// The error `body` throws, or nil.
func caughtError<T>(_ body: () async throws(AuthError) -> T) async -> AuthError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}

/// The same tokens, with expiries equal to the millisecond (the stored form keeps Unix
/// seconds as a Double, so a round trip may move a Date by a few nanoseconds).
func sameTokens(_ a: TokenSet?, _ b: TokenSet?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    func close(_ x: Date?, _ y: Date?) -> Bool {
        switch (x, y) {
        case (nil, nil): true
        case (let x?, let y?): abs(x.timeIntervalSince(y)) < 0.001
        default: false
        }
    }
    return a.accessToken == b.accessToken && a.refreshToken == b.refreshToken
        && close(a.accessTokenExpiry, b.accessTokenExpiry) && close(a.refreshTokenExpiry, b.refreshTokenExpiry)
        && close(a.obtainedAt, b.obtainedAt)
}

/// An in-memory store whose `load` number `heldLoad` reads the item at once but returns
/// it only when `release()` is called (at most 10 s later): a slow read racing a refresh.
final class SlowLoadStore: SecureStore {
    private let inner = InMemoryStore()
    private let loads = Mutex(0)
    private let released = DispatchSemaphore(value: 0)
    let heldLoad: Int

    init(heldLoad: Int) { self.heldLoad = heldLoad }

    var backendName: String { "slow-memory" }
    var loadCount: Int { loads.withLock { $0 } }
    func release() { released.signal() }

    func save(_ credential: Credential) throws(VaultError) { try inner.save(credential) }
    func remove(_ key: CredentialKey) throws(VaultError) { try inner.remove(key) }
    func list(server: String?) throws(VaultError) -> [CredentialInfo] { try inner.list(server: server) }

    func load(_ key: CredentialKey) throws(VaultError) -> Credential? {
        let value = try inner.load(key)
        let number = loads.withLock {
            $0 += 1
            return $0
        }
        if number == heldLoad { _ = released.wait(timeout: .now() + 10) }
        return value
    }
}

/// The system clock shifted by a fixed offset (tests of a wrong local clock).
struct ShiftedClock: AuthClock {
    let offset: TimeInterval
    func now() -> Date { Date().addingTimeInterval(offset) }
}
