// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import Foundation
import Logging
import VaultAuth
import VaultStore
import VaultStoreCLI

/// `--server URL --account A` for the re-auth commands, and what they need to build an
/// `AuthSession`: the store, an HTTP transport and the cross-process lock directory.
struct AuthOptions: ParsableArguments {
    @Option(help: "The server's base URL (https, or http to loopback only).")
    var server: String

    @Option(help: "The account (login) on that server.")
    var account: String

    @Option(
        help: ArgumentHelp(
            "Seconds to wait for each HTTP request (default 30); for a browser or device sign-in, for the person to finish "
                + "(default 300, device: the code's lifetime).", valueName: "seconds"))
    var timeout: Double?

    /// The longest `--timeout` accepted: one day.
    static let maximumTimeout: Double = 86_400
    /// The bound on each HTTP exchange when `--timeout` is not given.
    static let defaultRequestTimeout: Double = 30

    /// `--timeout` (or `fallback` when not given) as a `Duration`, or `.invalidRequest` when it
    /// is not a number of seconds above 0 and at most a day (`nan`, `inf`, `1e300`, `-1`).
    func validatedTimeout(default fallback: Double = defaultRequestTimeout) throws(AuthError) -> Duration {
        try Self.requestTimeout(seconds: timeout ?? fallback)
    }

    /// `seconds` (default 30) as a `Duration`, under the rules of ``validatedTimeout(default:)``.
    static func requestTimeout(seconds given: Double?) throws(AuthError) -> Duration {
        let seconds = given ?? defaultRequestTimeout
        guard seconds.isFinite, seconds > 0, seconds <= Self.maximumTimeout else {
            throw .invalidRequest("--timeout must be a number of seconds above 0 and at most \(Int(Self.maximumTimeout))")
        }
        return .milliseconds(max(1, Int((seconds * 1000).rounded())))
    }

    /// The bound on each HTTP exchange: `--timeout`, or the default 30 s when `--timeout`
    /// bounds a person's sign-in instead (a short wait for the person must not make
    /// discovery or the code exchange fail on a busy machine).
    func exchangeTimeout(interactive: Bool) throws(AuthError) -> Duration {
        let given = try validatedTimeout()
        return interactive ? .seconds(Self.defaultRequestTimeout) : given
    }

    /// Runs `body` with a session on the selected store; shuts the HTTP client down after.
    func withSession<T: Sendable>(
        _ store: StoreOptions, interactive: Bool = false, _ body: (AuthSession) async throws(AuthError) -> T
    ) async throws(AuthError) -> T {
        let requestTimeout = try exchangeTimeout(interactive: interactive)
        try Self.checkServer(server, account: account)
        let secureStore = try Self.openStore(store)
        return try await Self.withSession(
            server: server, account: account, requestTimeout: requestTimeout, secureStore: secureStore, options: store, body)
    }

    /// Refuses an empty account, and a server that is not a base URL vault may send a token to.
    static func checkServer(_ server: String, account: String) throws(AuthError) {
        guard !account.isEmpty else { throw .invalidRequest("the account must not be empty") }
        guard let url = URL(string: server), url.host != nil else {
            throw .invalidRequest("--server must be a URL such as https://auth.example.com")
        }
        guard url.query == nil, url.fragment == nil, !server.contains("#") else {
            throw .invalidRequest("--server must be the server's base URL, without a query or a fragment")
        }
        try URLPolicy.check(url)
    }

    /// The selected store, opened (with `--verbose`, the choice said on stderr).
    static func openStore(_ store: StoreOptions, addingCachedKeys: Bool = true) throws(AuthError) -> any SecureStore {
        do {
            let decision = try store.decision()
            if store.verbose { Terminal.note("backend \(decision)") }
            return try StoreFactory.open(decision, options: store, addingCachedKeys: addingCachedKeys)
        } catch {
            throw .store(error)
        }
    }

    /// Runs `body` with a session for `account` on `server` over `secureStore`; shuts the
    /// HTTP client down after. The server must have passed ``checkServer(_:account:)``. The
    /// refresh lock's directory is checked first (``AuthSession/checkLockDirectory()``), so
    /// an unsafe one is refused before anything is asked or sent.
    static func withSession<T: Sendable>(
        server: String, account: String, requestTimeout: Duration, secureStore: any SecureStore, options store: StoreOptions,
        _ body: (AuthSession) async throws(AuthError) -> T
    ) async throws(AuthError) -> T {
        let transport = AsyncHTTPTransport()
        let configuration = Requester.Configuration(requestTimeout: requestTimeout)
        var logger = Logger(label: "vault")
        logger.logLevel = store.verbose ? .info : .warning
        let session = AuthSession(
            store: secureStore, server: server, account: account, transport: WaitNoticeTransport(transport), configuration: configuration,
            reauthentication: .init(coolDown: ReauthenticationSettings.coolDown(store.environment)), logger: logger)
        let result: Result<T, AuthError>
        do throws(AuthError) {
            try session.checkLockDirectory()
            result = .success(try await body(session))
        } catch {
            result = .failure(error)
        }
        await transport.shutdown()
        return try result.get()
    }
}
