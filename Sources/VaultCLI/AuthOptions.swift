// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import Foundation
import Logging
import VaultAuth
import VaultHTTPClient
import VaultStore
import VaultStoreCLI

/// The account named, and what the sign-in commands need to build an `AuthSession`: the
/// store, an HTTP transport and the cross-process lock directory. Left out, the account is
/// the only one logged in (``resolvedNames(in:)``).
///
/// Each declares `--server` and `--account` itself (``serverOptionHelp``,
/// ``accountOptionHelp``) rather than in a nested option group: swift-argument-parser's debug
/// builds check a nested group once per level around it on every parse (see ``StoreOptions``).
protocol SessionOptions {
    /// `--server` as given, or the first argument (``take(_:)``).
    var serverOption: String? { get set }
    /// `--account` as given, or the second argument.
    var accountOption: String? { get set }
    /// `--timeout`, for the commands that make requests.
    var timeout: Double? { get }
}

/// The sign-in options of the commands that make requests: the account and `--timeout`.
struct AuthOptions: ParsableArguments, SessionOptions {
    @Option(name: .customLong("server"), help: serverOptionHelp) var serverOption: String?
    @Option(name: .customLong("account"), help: accountOptionHelp) var accountOption: String?

    @Option(
        help: ArgumentHelp(
            "Seconds to wait for each HTTP request (default 30); for a browser or device sign-in, for the person to finish "
                + "(default 300, device: the code's lifetime).", valueName: "seconds"))
    var timeout: Double?

    /// The longest `--timeout` accepted: one day.
    static let maximumTimeout: Double = 86_400
    /// The bound on each HTTP exchange when `--timeout` is not given.
    static let defaultRequestTimeout: Double = 30

    /// `seconds` (default 30) as a `Duration`, under the rules of ``validatedTimeout(default:)``.
    static func requestTimeout(seconds given: Double?) throws(AuthError) -> Duration {
        let seconds = given ?? defaultRequestTimeout
        guard seconds.isFinite, seconds > 0, seconds <= Self.maximumTimeout else {
            throw .invalidRequest("--timeout must be a number of seconds above 0 and at most \(Int(Self.maximumTimeout))")
        }
        return .milliseconds(max(1, Int((seconds * 1000).rounded())))
    }

    /// The accounts logged in on `store` (those with stored tokens), by server then account.
    static func loggedInAccounts(in store: any SecureStore) throws(AuthError) -> [(server: String, account: String)] {
        do throws(VaultError) {
            return try store.list(server: nil).filter { $0.kind == .tokens }.map { ($0.server, $0.account) }
                .sorted { ($0.server, $0.account) < ($1.server, $1.account) }
        } catch {
            throw .store(error)
        }
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
    static func openStore(_ store: some StoreConfigurable, addingCachedKeys: Bool = true) throws(AuthError) -> any SecureStore {
        do {
            let decision = try store.decision()
            if store.verbose { Terminal.note("backend \(decision.worded)") }
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
        server: String, account: String, requestTimeout: Duration, secureStore: any SecureStore, options store: some StoreConfigurable,
        _ body: (AuthSession) async throws(AuthError) -> T
    ) async throws(AuthError) -> T {
        var configuration = Requester.Configuration(requestTimeout: requestTimeout)
        let coolDown: TimeInterval
        do throws(VaultError) {
            configuration.lock = try LockDirectorySettings.placement(for: secureStore, store.variables)
            coolDown = try ReauthenticationSettings.coolDown(store.variables)
        } catch {
            throw .store(error)
        }
        let transport = AsyncHTTPTransport(connectTimeout: requestTimeout)
        var logger = Logger(label: "vault")
        logger.logLevel = store.verbose ? .info : .warning
        let session = AuthSession(
            store: secureStore, server: server, account: account, transport: WaitNoticeTransport(transport), configuration: configuration,
            reauthentication: .init(coolDown: coolDown), logger: logger)
        let result: Result<T, AuthError>
        do throws(AuthError) {
            try session.checkLockDirectory()
            result = .success(try await body(session))
        } catch {
            // Named, so that "run vault login" says exactly what to run: `vault login SERVER
            // ACCOUNT`, which signs in again with the account's kept options.
            let named = error.naming(server: ServerName.normalized(server), account: account)
            result = .failure(await AccountNotFound.explained(named, items: session.items))
        }
        await transport.shutdown(waitingAtMost: .seconds(1))
        return try result.get()
    }
}

/// The sign-in options of a command that makes no request (`whoami`): the account only.
struct AccountOptions: ParsableArguments, SessionOptions {
    @Option(name: .customLong("server"), help: serverOptionHelp) var serverOption: String?
    @Option(name: .customLong("account"), help: accountOptionHelp) var accountOption: String?
    var timeout: Double? { nil }
}

/// The help of `--server` and `--account`, the same in every sign-in command.
let serverOptionHelp = ArgumentHelp("The server's base URL (https, or http to loopback only); or the first argument.", valueName: "url")
let accountOptionHelp = ArgumentHelp("The account (login) on that server; or the second argument.", valueName: "account")

extension SessionOptions {
    /// The server as given (empty when it was not: see ``resolvedNames(in:)``).
    var server: String { serverOption ?? "" }
    /// The account as given (empty when it was not).
    var account: String { accountOption ?? "" }
    /// True when both the server and the account were given.
    var isNamed: Bool { serverOption != nil && accountOption != nil }

    /// Takes `SERVER ACCOUNT` given as arguments: in order, they fill what --server and
    /// --account leave out (`vault token URL A`, `vault token --server URL A`). A name given
    /// both ways is refused, even when the two agree.
    mutating func take(_ positionals: [String]) throws(ValidationError) {
        let given = (server: serverOption, account: accountOption)
        var rest = positionals[...]
        if serverOption == nil, let first = rest.popFirst() { serverOption = first }
        if accountOption == nil, let next = rest.popFirst() { accountOption = next }
        // The surplus word is never quoted: it is most often a password typed as an argument.
        guard !rest.isEmpty else { return }
        switch (given.server, given.account) {
        case (let server?, nil): throw ValidationError("the server is given twice: '\(positionals[0])' and --server '\(server)'")
        case (nil, let account?): throw ValidationError("the account is given twice: '\(positionals[1])' and --account '\(account)'")
        case (.some, .some): throw ValidationError("too many arguments: --server and --account already name the account")
        case (nil, nil): throw ValidationError("too many arguments: give the server and the account only (a password is never an argument)")
        }
    }

    /// The server and account to act on: those given; when either is left out, the only
    /// logged-in account (that has the one given). None or several: `.invalidRequest`
    /// (exit 2) saying to run `vault login`, or listing them.
    func resolvedNames(in store: any SecureStore) throws(AuthError) -> (server: String, account: String) {
        if let serverOption, let accountOption { return (serverOption, accountOption) }
        var accounts = try AuthOptions.loggedInAccounts(in: store)
        if let serverOption { accounts = accounts.filter { $0.server == ServerName.normalized(serverOption) } }
        if let accountOption { accounts = accounts.filter { $0.account == accountOption } }
        let matching = serverOption.map { " on \(ServerName.normalized($0))" } ?? accountOption.map { " as \($0)" } ?? ""
        switch accounts.count {
        case 1:
            return accounts[0]
        case 0:
            throw .invalidRequest("no account is logged in\(matching); run vault login SERVER ACCOUNT first")
        default:
            let listed = accounts.map { "\($0.server) \($0.account)" }.joined(separator: ", ")
            throw .invalidRequest("\(accounts.count) accounts are logged in\(matching); name one as SERVER ACCOUNT: \(listed)")
        }
    }

    /// `--timeout` (or `fallback` when not given) as a `Duration`, or `.invalidRequest` when it
    /// is not a number of seconds above 0 and at most a day (`nan`, `inf`, `1e300`, `-1`).
    func validatedTimeout(default fallback: Double = AuthOptions.defaultRequestTimeout) throws(AuthError) -> Duration {
        try AuthOptions.requestTimeout(seconds: timeout ?? fallback)
    }

    /// The bound on each HTTP exchange: `--timeout`, or the default 30 s when `--timeout`
    /// bounds a person's sign-in instead (a short wait for the person must not make
    /// discovery or the code exchange fail on a busy machine).
    func exchangeTimeout(interactive: Bool) throws(AuthError) -> Duration {
        let given = try validatedTimeout()
        return interactive ? .seconds(AuthOptions.defaultRequestTimeout) : given
    }

    /// Runs `body` with a session on the selected store for the account named, or the only
    /// one logged in (``resolvedNames(in:)``); shuts the HTTP client down after.
    /// ``withSession(_:interactive:_:)`` over a store opened already: `vault login`'s,
    /// which reads the account's kept options first. The account must be named.
    func withSession<T: Sendable>(
        opened secureStore: any SecureStore, _ store: some StoreConfigurable, interactive: Bool = false,
        _ body: (AuthSession) async throws(AuthError) -> T
    ) async throws(AuthError) -> T {
        let requestTimeout = try exchangeTimeout(interactive: interactive)
        try AuthOptions.checkServer(server, account: account)
        StoreHintWords.record(store.configuration)
        return try await AuthOptions.withSession(
            server: server, account: account, requestTimeout: requestTimeout, secureStore: secureStore, options: store, body)
    }

    func withSession<T: Sendable>(
        _ store: some StoreConfigurable, interactive: Bool = false, _ body: (AuthSession) async throws(AuthError) -> T
    ) async throws(AuthError) -> T {
        let requestTimeout = try exchangeTimeout(interactive: interactive)
        StoreHintWords.record(store.configuration)
        // Named: checked before the store asks for a passphrase.
        if isNamed { try AuthOptions.checkServer(server, account: account) }
        let secureStore = try AuthOptions.openStore(store)
        let names = try resolvedNames(in: secureStore)
        try AuthOptions.checkServer(names.server, account: names.account)
        return try await AuthOptions.withSession(
            server: names.server, account: names.account, requestTimeout: requestTimeout, secureStore: secureStore, options: store, body)
    }
}
