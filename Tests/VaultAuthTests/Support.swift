// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import HTTPTypes
import Logging
import Testing
import VaultHTTPClient
import VaultStore
import VaultTestSupport
import VaultTesting

@testable import VaultAuth

// MARK: - Small helpers (the fakes, Recorder and Gate are VaultTesting's)

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

func bearer(of sent: FakeTransport.Sent) -> String? { FakeTransport.bearer(of: sent) }

/// What a ``FakeTransport`` answers.
typealias Reply = FakeTransport.Reply

/// A logger at `.trace` whose lines land in `lines`.
func capturingLogger(_ lines: Recorder<String>, label: String = "vault.requester.test") -> Logger {
    capturingLogger(label: label) { lines.append($0) }
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
    var devsRequest: HTTPRequest { HTTPRequest(method: .get, url: devsURL) }

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

/// Sends `count` copies of `request` concurrently; the response heads or errors in any order.
func sendConcurrently(_ count: Int, _ request: HTTPRequest, through requester: Requester) async -> [Result<HTTPResponse, AuthError>] {
    await withTaskGroup(of: Result<HTTPResponse, AuthError>.self) { group in
        for _ in 0..<count {
            group.addTask {
                do throws(AuthError) {
                    return .success(try await requester.send(request).response)
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

/// The system clock shifted by a fixed offset (tests of a wrong local clock).
struct ShiftedClock: AuthClock {
    let offset: TimeInterval
    func now() -> Date { Date().addingTimeInterval(offset) }
}
