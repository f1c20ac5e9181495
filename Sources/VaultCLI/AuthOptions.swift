// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import Foundation
import Logging
import VaultAuth
import VaultStore

/// `--server URL --account A` for the re-auth commands, and what they need to build an
/// `AuthSession`: the store, an HTTP transport and the cross-process lock directory.
struct AuthOptions: ParsableArguments {
    @Option(help: "The server's base URL (https, or http to loopback only).")
    var server: String

    @Option(help: "The account (login) on that server.")
    var account: String

    @Option(help: ArgumentHelp("Seconds to wait for each HTTP request.", valueName: "seconds"))
    var timeout: Double = 30

    /// The longest `--timeout` accepted: one day.
    static let maximumTimeout: Double = 86_400

    /// `--timeout` as a `Duration`, or `.invalidRequest` when it is not a number of
    /// seconds above 0 and at most a day (`nan`, `inf`, `1e300`, `-1`).
    func validatedTimeout() throws(AuthError) -> Duration {
        guard timeout.isFinite, timeout > 0, timeout <= Self.maximumTimeout else {
            throw .invalidRequest("--timeout must be a number of seconds above 0 and at most \(Int(Self.maximumTimeout))")
        }
        return .milliseconds(max(1, Int((timeout * 1000).rounded())))
    }

    /// Runs `body` with a session on the selected store; shuts the HTTP client down after.
    func withSession<T: Sendable>(
        _ store: StoreOptions, _ body: (AuthSession) async throws(AuthError) -> T
    ) async throws(AuthError) -> T {
        guard !account.isEmpty else { throw .invalidRequest("the account must not be empty") }
        let requestTimeout = try validatedTimeout()
        guard let url = URL(string: server), url.host != nil else {
            throw .invalidRequest("--server must be a URL such as https://auth.example.com")
        }
        guard url.query == nil, url.fragment == nil, !server.contains("#") else {
            throw .invalidRequest("--server must be the server's base URL, without a query or a fragment")
        }
        try URLPolicy.check(url)
        let decision: BackendDecision
        let secureStore: any SecureStore
        do {
            decision = try store.decision()
            if store.verbose { Terminal.note("backend \(decision)") }
            secureStore = try StoreFactory.open(decision, options: store)
        } catch {
            throw .store(error)
        }
        let transport = AsyncHTTPTransport()
        let configuration = Requester.Configuration(requestTimeout: requestTimeout)
        var logger = Logger(label: "vault")
        logger.logLevel = store.verbose ? .info : .warning
        let session = AuthSession(
            store: secureStore, server: server, account: account, transport: transport, configuration: configuration,
            reauthentication: .init(coolDown: ReauthenticationSettings.coolDown(store.environment)), logger: logger)
        let result: Result<T, AuthError>
        do throws(AuthError) {
            result = .success(try await body(session))
        } catch {
            result = .failure(error)
        }
        await transport.shutdown()
        return try result.get()
    }
}
