import Foundation
import Logging
import VaultStore

/// What the Requester did for a request, for logs and for the `vault request` report.
public enum RequesterEvent: Sendable, Equatable {
    /// The stored access token was used as it was.
    case usedToken
    /// The access token was refreshed with the refresh token.
    case refreshed
    /// Another process had refreshed already; its tokens were taken from the store.
    case adoptedStoredTokens
    /// The refresh token was dead and the reauthenticator logged in again.
    case loggedInAgain
    /// A 401 led to one replay of the request.
    case replayedAfter401
}

/// Logs in again when a refresh fails for good (see `SilentReauthenticator`).
public protocol Reauthenticating: Sendable {
    /// New tokens from a fresh login, or the error to report.
    func reauthenticate(account: AccountItems, provider: any AuthProvider, after failure: AuthError) async throws(AuthError)
        -> TokenSet
}

/// Sends HTTP requests with an account's access token and keeps that token valid.
///
/// - Before sending, a `stale` token (within the leeway of expiry) or an `expired` one is
///   refreshed. When a stale token cannot be refreshed for a transient reason, the
///   still-valid token is used.
/// - Exactly one refresh runs at a time in a process: every request that needs it waits
///   for it. Across processes the refresh holds `RefreshLock` and re-reads the store
///   under it, adopting tokens another process already refreshed.
/// - New tokens are written to the store before any waiter resumes.
/// - A 401 for a request that carried the current token causes one refresh and one
///   replay; a 401 for a token that was replaced meanwhile is replayed with the new one
///   without a refresh. Never more than one replay per request: a second 401 is
///   `.authentication`.
/// - Transient failures (5xx, timeouts) never discard the stored tokens.
public actor Requester {
    public struct Configuration: Sendable {
        /// Refresh this long before expiry (at most half the token's lifetime).
        public var leeway: TimeInterval = TokenSet.defaultLeeway
        /// The timeout of each request to the resource server.
        public var requestTimeout: Duration = .seconds(30)
        /// How long to wait for another process's refresh.
        public var lockTimeout: Duration = .seconds(60)
        /// Directory of the cross-process lock files (nil: in-process single flight only).
        public var lockDirectory: String?

        public init(leeway: TimeInterval = TokenSet.defaultLeeway, requestTimeout: Duration = .seconds(30),
                    lockTimeout: Duration = .seconds(60), lockDirectory: String? = nil) {
            self.leeway = leeway
            self.requestTimeout = requestTimeout
            self.lockTimeout = lockTimeout
            self.lockDirectory = lockDirectory
        }
    }

    public let account: AccountItems
    public let provider: any AuthProvider
    private let transport: any HTTPTransport
    private let clock: any AuthClock
    private let configuration: Configuration
    private let reauthenticator: (any Reauthenticating)?
    private let logger: Logger
    private let onEvent: @Sendable (RequesterEvent) -> Void

    private var tokens: TokenSet?
    private var bearerCache: (token: Secret, header: String)?
    private var refreshTask: Task<Result<TokenSet, AuthError>, Never>?
    private var loadTask: Task<Result<TokenSet?, AuthError>, Never>?

    public init(
        account: AccountItems, provider: any AuthProvider, transport: any HTTPTransport,
        clock: any AuthClock = SystemClock(), configuration: Configuration = Configuration(),
        reauthenticator: (any Reauthenticating)? = nil, logger: Logger = Logger(label: "vault.requester"),
        onEvent: @escaping @Sendable (RequesterEvent) -> Void = { _ in }
    ) {
        self.account = account
        self.provider = provider
        self.transport = transport
        self.clock = clock
        self.configuration = configuration
        self.reauthenticator = reauthenticator
        self.logger = logger
        self.onEvent = onEvent
    }

    /// Sends `request` with `Authorization: Bearer <access token>` and returns the
    /// response, whatever its status, unless authentication fails for good.
    ///
    /// Only the token bookkeeping runs on the actor; the HTTP exchanges run outside it, so
    /// concurrent requests do not queue behind each other's responses.
    public nonisolated func send(_ request: HTTPRequest) async throws(AuthError) -> HTTPResponse {
        try URLPolicy.check(request.url)
        let (used, header) = try await authorizationForRequest()
        let response = try await transport.send(request.setting("Authorization", to: header), timeout: configuration.requestTimeout)
        guard response.status == 401 else { return response }

        let replacement = try await tokensAfter401(for: used)
        emit(.replayedAfter401)
        let replayed = try await transport.send(
            request.setting("Authorization", to: "Bearer \(replacement.accessToken.utf8String ?? "")"),
            timeout: configuration.requestTimeout)
        guard replayed.status != 401 else {
            throw .authentication("the server rejects the account's new access token too")
        }
        return replayed
    }

    /// The tokens to send and their `Authorization` header.
    private func authorizationForRequest() async throws(AuthError) -> (TokenSet, String) {
        let tokens = try await usableTokens()
        return (tokens, bearer(for: tokens))
    }

    /// After a 401 for `used`: the tokens that replaced it meanwhile, or one refresh.
    private func tokensAfter401(for used: TokenSet) async throws(AuthError) -> TokenSet {
        if let current = tokens, current.accessToken != used.accessToken {
            logger.debug("401 for a token that was replaced meanwhile; replaying with the current one")
            return try await usableTokens()
        }
        logger.debug("401 for the current token; refreshing once")
        return try await refreshedTokens(replacing: used)
    }

    /// A valid access token, refreshed first if needed (`vault token`).
    public func accessToken() async throws(AuthError) -> Secret {
        try await usableTokens().accessToken
    }

    /// The tokens in memory (nil before the first request).
    public var currentTokens: TokenSet? { tokens }

    // MARK: - Token state machine

    private func usableTokens() async throws(AuthError) -> TokenSet {
        if tokens == nil {
            // The actor is reentrant: a load that started before a refresh finished must not
            // put the replaced tokens back in memory.
            let loaded = try await initialLoad()
            if tokens == nil { tokens = loaded }
        }
        guard let current = tokens else {
            throw .authentication("not logged in to \(account.server) as \(account.account); run vault login")
        }
        switch current.freshness(at: clock.now(), leeway: configuration.leeway) {
        case .fresh:
            emit(.usedToken)
            return current
        case .stale:
            do {
                return try await refreshedTokens(replacing: current)
            } catch where error.isTransient && current.freshness(at: clock.now(), leeway: 0) != .expired {
                logger.notice("refresh failed (\(error)); the access token is still valid, using it")
                return current
            }
        case .expired:
            return try await refreshedTokens(replacing: current)
        }
    }

    /// The first read of the stored tokens, shared by every request that arrives before it
    /// completes (a thousand concurrent first requests cause one store read).
    private func initialLoad() async throws(AuthError) -> TokenSet? {
        let task: Task<Result<TokenSet?, AuthError>, Never>
        if let running = loadTask {
            task = running
        } else {
            let account = self.account
            task = Task {
                do throws(AuthError) { return .success(try await account.loadTokens()) } catch { return .failure(error) }
            }
            loadTask = task
        }
        let result = await task.value
        if loadTask == task { loadTask = nil }
        return try result.get()
    }

    /// Single flight: joins the refresh under way, or starts one.
    private func refreshedTokens(replacing old: TokenSet) async throws(AuthError) -> TokenSet {
        if let current = tokens, current.accessToken != old.accessToken,
            current.freshness(at: clock.now(), leeway: configuration.leeway) == .fresh
        {
            return current
        }
        let task: Task<Result<TokenSet, AuthError>, Never>
        if let running = refreshTask {
            task = running
        } else {
            task = Task { await self.performRefresh(replacing: old) }
            refreshTask = task
        }
        return try await task.value.get()
    }

    /// The refresh itself: cross-process lock, re-read, refresh (or re-login), store,
    /// then publish in memory. Runs once per flight.
    private func performRefresh(replacing old: TokenSet) async -> Result<TokenSet, AuthError> {
        let result: Result<TokenSet, AuthError>
        do throws(AuthError) {
            result = .success(try await refreshUnderLock(replacing: old))
        } catch {
            result = .failure(error)
        }
        if case .success(let new) = result { tokens = new }
        refreshTask = nil
        return result
    }

    private func refreshUnderLock(replacing old: TokenSet) async throws(AuthError) -> TokenSet {
        var lock: RefreshLock?
        if let directory = configuration.lockDirectory {
            let path = RefreshLock.path(directory: directory, server: account.server, account: account.account)
            lock = try await RefreshLock.acquire(path: path, timeout: configuration.lockTimeout)
        }
        defer { withExtendedLifetime(lock) {} }

        let stored = try await account.loadTokens()
        if let stored, stored.accessToken != old.accessToken,
            stored.freshness(at: clock.now(), leeway: configuration.leeway) == .fresh
        {
            logger.debug("another process refreshed already; adopting its tokens")
            emit(.adoptedStoredTokens)
            return stored
        }
        let base = stored ?? old
        let new: TokenSet
        do throws(AuthError) {
            guard base.canRefresh(at: clock.now()) else {
                throw AuthError.authentication("the refresh token has expired")
            }
            new = try await provider.refresh(base)
            emit(.refreshed)
            logger.debug("refreshed the access token of \(account.account)")
        } catch {
            guard case .authentication = error, let reauthenticator else { throw error }
            logger.notice("the refresh token is dead (\(error)); logging in again with the stored credentials")
            new = try await reauthenticator.reauthenticate(account: account, provider: provider, after: error)
            emit(.loggedInAgain)
        }
        try await account.saveTokens(new)
        return new
    }

    /// `Bearer <token>`, built once per access token rather than once per request.
    private func bearer(for tokens: TokenSet) -> String {
        if let cached = bearerCache, cached.token == tokens.accessToken { return cached.header }
        let header = "Bearer \(tokens.accessToken.utf8String ?? "")"
        bearerCache = (tokens.accessToken, header)
        return header
    }

    private nonisolated func emit(_ event: RequesterEvent) { onEvent(event) }
}
