// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Logging
import VaultStore

/// The account-level operations behind `vault login`, `token`, `request` and `logout`,
/// for any program that wants the same behaviour: log in once, then stay logged in.
public struct AuthSession: Sendable {
    /// The account's items in the store, its server normalised with ``ServerName/normalized(_:)``.
    public let items: AccountItems
    /// How every exchange (logins, refreshes, resource requests) reaches the network.
    public let transport: any HTTPTransport
    /// The wall clock token expiries are compared with (``SystemClock`` unless a test injects another).
    public let clock: any AuthClock
    /// Leeway, timeouts and lock placement of the ``TokenSource``s and ``Requester``s this session makes; its
    /// ``Requester/Configuration/requestTimeout`` also bounds each login and refresh exchange.
    public let configuration: Requester.Configuration
    /// Where providers, requesters and the reauthenticator log (label `vault.auth` by default); no token or
    /// password is ever logged.
    public let logger: Logger
    /// The silent re-login policy of the requesters this session makes (default: a 5-minute
    /// ``SilentReauthenticator/Policy/coolDown``); nil: a dead refresh token fails with
    /// ``AuthError/authentication(_:providerCode:remedy:)``.
    public let reauthentication: SilentReauthenticator.Policy?

    /// A session for `account` on `server` (normalised with `ServerName.normalized`).
    public init(
        store: any SecureStore, server: String, account: String, transport: any HTTPTransport,
        clock: any AuthClock = SystemClock(), configuration: Requester.Configuration = .init(),
        reauthentication: SilentReauthenticator.Policy? = .init(), logger: Logger = Logger(label: "vault.auth")
    ) {
        self.items = AccountItems(store: store, server: ServerName.normalized(server), account: account)
        self.transport = transport
        self.clock = clock
        self.configuration = configuration
        self.reauthentication = reauthentication
        self.logger = logger
    }

    /// The provider the settings describe.
    public func provider(for settings: LoginSettings) throws(AuthError) -> any AuthProvider {
        guard let base = URL(string: settings.serverURL) else {
            throw .invalidRequest("not a URL: \(URLPolicy.redacted(text: settings.serverURL))")
        }
        // Every exchange, logins and refreshes included, has the one deadline of the configuration.
        let timeout = configuration.requestTimeout
        switch settings.provider {
        case .reference:
            return ReferenceAPIProvider(baseURL: base, transport: transport, clock: clock, timeout: timeout, logger: logger)
        case .oauth2, .oidc, .apple:
            return try OAuth2Provider(settings: settings, transport: transport, clock: clock, timeout: timeout, logger: logger)
        }
    }

    /// Logs in with `password` (nil for a client-credentials grant), then stores the
    /// password, the tokens and the settings. Nothing is stored when the login fails.
    @discardableResult
    public func login(settings: LoginSettings, password: Secret?) async throws(AuthError) -> TokenSet {
        let provider = try provider(for: settings)
        let tokens = try await provider.login(account: items.account, password: password)
        let items = self.items
        try await withAccountLock { () async throws(AuthError) in
            if let password { try await items.savePassword(password) }
            try await items.saveSettingsData(settings.encoded())
            try await items.saveTokens(tokens)
            try await SilentReauthenticator.clearRejection(items)
        }
        return tokens
    }

    /// Refuses now, before anything is asked or sent, a directory that the account's refresh
    /// lock file would be refused in later (``PrivateDirectory``: another user's, or one the
    /// group or others can write to), rather than at the first refresh, a token lifetime
    /// later: `.store(.permission)`. A directory that does not exist yet is created private
    /// when the lock is first taken. Nothing to check for a store that brings its own lock.
    public func checkLockDirectory() throws(AuthError) {
        guard let files = configuration.lock.locking(for: items.store) as? FileAccountLocking else { return }
        do throws(VaultError) {
            try PrivateDirectory.checkIfPresent(files.directory, what: "the lock directory")
        } catch {
            throw .store(error)
        }
    }

    /// Runs `body` holding the account's refresh lock (the TokenSource's, across processes), so
    /// a refresh that is under way cannot write its tokens over a new sign-in's, or back after
    /// a logout. Without a cross-process lock (``RefreshLock/Placement/inProcessOnly``) it just runs.
    func withAccountLock<T>(_ body: () async throws(AuthError) -> T) async throws(AuthError) -> T {
        guard let locking = configuration.lock.locking(for: items.store) else { return try await body() }
        let hold = try await locking.hold(server: items.server, account: items.account, timeout: configuration.lockTimeout)
        return try await releasing(hold, after: body)
    }

    /// The provider of OAuth 2.0 / OpenID Connect `settings`; `.configuration` for the reference API.
    public func oauthProvider(for settings: LoginSettings) throws(AuthError) -> OAuth2Provider {
        guard let provider = try provider(for: settings) as? OAuth2Provider else {
            throw .configuration("the reference API has no browser or device sign-in", remedy: .useProvider([.oidc, .oauth2]))
        }
        return provider
    }

    /// Stores the settings and the tokens of an interactive sign-in (``BrowserSignIn``,
    /// ``DeviceSignIn``); a stored password, if any, is left as it is.
    /// `locked` runs once the account's lock is held, just before the writes (a command stops
    /// honouring Ctrl-C there).
    public func adopt(_ tokens: TokenSet, settings: LoginSettings, locked: @Sendable () -> Void = {}) async throws(AuthError) {
        let items = self.items
        try await withAccountLock { () async throws(AuthError) in
            locked()
            try await items.saveSettingsData(settings.encoded())
            try await items.saveTokens(tokens)
            try await SilentReauthenticator.clearRejection(items)
        }
    }

    /// The stored tokens' verified ID-token claims, or nil when the account has no ID token.
    public func identity() async throws(AuthError) -> IDTokenClaims? {
        _ = try await settings()
        guard let tokens = try await items.loadTokens() else {
            throw notLoggedIn
        }
        return tokens.idToken?.utf8String.flatMap(IDTokenClaims.init(storedToken:))
    }

    /// ``AuthError/notLoggedIn(server:account:nearby:)`` for this account.
    var notLoggedIn: AuthError {
        .notLoggedIn(server: items.server, account: items.account)
    }

    /// The stored settings, or ``AuthError/notLoggedIn(server:account:nearby:)`` when there are none.
    public func settings() async throws(AuthError) -> LoginSettings {
        guard let data = try await items.loadSettingsData(), let settings = LoginSettings.decode(data) else {
            throw notLoggedIn
        }
        return settings
    }

    /// The account's ``TokenSource`` (what `vault token` asks), with silent re-login when the
    /// policy allows it. Pass `settings` when they were read already, so the store is not read twice.
    public func tokenSource(
        settings known: LoginSettings? = nil, onEvent: @escaping @Sendable (RequesterEvent) -> Void = { _ in }
    ) async throws(AuthError) -> TokenSource {
        let settings: LoginSettings
        if let known { settings = known } else { settings = try await self.settings() }
        return TokenSource(
            account: items, provider: try provider(for: settings), clock: clock, configuration: configuration,
            reauthenticator: reauthentication.map { SilentReauthenticator(policy: $0, clock: clock, logger: logger) },
            logger: logger, onEvent: onEvent)
    }

    /// A Requester for this account, over a ``tokenSource(settings:onEvent:)`` of its own.
    /// Pass `settings` when they were read already, so the store is not read twice.
    public func requester(
        settings known: LoginSettings? = nil, onEvent: @escaping @Sendable (RequesterEvent) -> Void = { _ in }
    ) async throws(AuthError) -> Requester {
        Requester(tokenSource: try await tokenSource(settings: known, onEvent: onEvent), transport: transport, onEvent: onEvent)
    }

    /// What ``logout(forgetPassword:revoke:)`` did besides deleting the local items.
    public struct LogoutReport: Sendable {
        /// The tokens the provider was told to revoke (`refresh_token`, `access_token`).
        public var revoked: [String] = []
        /// Whether the account had tokens to forget (false: it was not logged in).
        public var hadTokens = false
        /// Whether the provider was to be told: `revoke`, and a revocation endpoint (RFC 7009) in
        /// the settings. Without one it is not told, and the tokens stay valid there until they expire.
        public var canRevoke = false
        /// Why the provider could not be told, when it could not; the local items are gone anyway.
        public var revocationFailure: AuthError?
        /// The settings the account had (for an end-session request), nil when it had none.
        public var settings: LoginSettings?
        /// The ID token the account had (the end-session request's `id_token_hint`).
        public var idToken: Secret?
        /// Whether a password item of the account is still stored (a logout without
        /// `forgetPassword` keeps it, for the next login).
        public var passwordKept = false
        /// Whether the account had a password item before the logout.
        public var hadPassword = false
    }

    /// Forgets the tokens and settings (and the password with `forgetPassword`). A Sign in with
    /// Apple account has no password: its settings item (the developer's key and the pending
    /// profile) stays unless `forgetPassword`, and a password item of the same server and
    /// account (not written by its sign-in) is never removed. With `revoke`,
    /// and a revocation endpoint in the settings, then tells the provider (RFC 7009): the
    /// refresh token, then the access token, each offered even if the other failed. The
    /// local tokens are gone whatever the provider says; the report says whether it could be
    /// told.
    @discardableResult
    public func logout(forgetPassword: Bool, revoke: Bool = true) async throws(AuthError) -> LogoutReport {
        var report = LogoutReport()
        let items = self.items
        let (settings, tokens, hadPassword) = try await withAccountLock { () async throws(AuthError) in
            // Read and deleted under the lock, so a refresh under way cannot store tokens back.
            let settings = (try await items.loadSettingsData()).flatMap(LoginSettings.decode)
            let tokens = try await items.loadTokens()
            let hadPassword = try await items.loadPassword() != nil
            let isApple = settings?.provider == .apple
            try await items.removeTokens()
            if !isApple || forgetPassword { try await items.removeSettings() }
            if forgetPassword, !isApple { try await items.removePassword() }
            return (settings, tokens, hadPassword)
        }
        report.hadPassword = hadPassword
        report.settings = settings
        report.idToken = tokens?.idToken
        report.passwordKept = (try? await items.loadPassword()) != nil
        report.hadTokens = tokens != nil
        report.canRevoke = revoke && settings?.revocationURL != nil
        guard revoke, let settings, settings.revocationURL != nil, let tokens else { return report }
        let provider: OAuth2Provider
        do throws(AuthError) {
            provider = try oauthProvider(for: settings)
        } catch {
            report.revocationFailure = error
            return report
        }
        // Each token is offered even when the other could not be revoked.
        for (token, hint) in [(tokens.refreshToken, "refresh_token"), (tokens.accessToken, "access_token")] {
            guard let token else { continue }
            do throws(AuthError) {
                try await provider.revoke(token, hint: hint)
                report.revoked.append(hint)
            } catch {
                if report.revocationFailure == nil { report.revocationFailure = error }
            }
        }
        return report
    }

    /// The URL for `target` on the account's server (see `RequestTarget`): a path or a
    /// query is resolved against the server URL; an absolute URL must have the server's
    /// origin. The `Requester` checks the origin again on what it actually sends.
    public func resolve(_ target: String, settings: LoginSettings) throws(AuthError) -> URL {
        guard let base = URL(string: settings.serverURL) else { throw .invalidRequest("not a URL: \(URLPolicy.redacted(text: settings.serverURL))") }
        return try RequestTarget.resolve(target, against: base)
    }
}
