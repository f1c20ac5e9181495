// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import FoundationEssentials
import Hummingbird
import Logging
import ServiceLifecycle
import VaultSync

/// The reference auth API (the endpoints below; `vault-auth-server` in the README) as an in-process
/// HTTP server.
///
/// ```swift
/// let server = try ReferenceAuthServer(configuration: .init(accessTokenLifetime: 1, users: [.init(name: "ann", secret: "pw")]))
/// let port = try await server.start()          // bound port (ephemeral when configured port is 0)
/// // ... talk to http://127.0.0.1:\(port) ...
/// server.faults.set(.status500)                // make the refresh endpoints fail
/// print(server.stats.refreshes)
/// await server.stop()
/// ```
///
/// Endpoints (errors are `{"code","message"}` with messages from ``AuthServerMessages``):
/// - `POST /api/register`, `POST /api/login` `{"login","password"}` (`application/json`) -> ``User``
/// - `POST /api/refresh_tokens` with `Authorization: Bearer <refresh>` -> ``TokensInfo``;
///   the presented refresh token is dead afterwards (rotation)
/// - `GET /api/get_devs` with `Authorization: Bearer <access>` -> `[`Developer`]`
/// - `GET /api/stats` -> ``AuthServerStats``
/// - `POST /oauth/token` (RFC 6749, see ``OAuthTokenResponse`` and ``OAuthError``): password,
///   refresh_token, client_credentials, authorization_code (PKCE S256) and device_code grants
/// - `GET /.well-known/openid-configuration`, `GET /.well-known/oauth-authorization-server`
///   -> ``AuthServerMetadata``; `GET /oauth/jwks` (the ES256 key of the ID tokens)
/// - `GET`/`POST /oauth/authorize` (login and consent page), `POST /oauth/device_authorization`
///   and `GET`/`POST /device` (RFC 8628), `POST /oauth/revoke` (RFC 7009), `GET /oauth/logout`
/// - with ``AuthServerConfiguration/appleClients``, Sign in with Apple's `POST /apple/auth/token`,
///   `GET /apple/auth/keys` and `POST /apple/auth/revoke` (see `AppleRoutes`; RS256 ID tokens)
/// - `POST /api/test/...` only with ``AuthServerConfiguration/testControls``
///
/// Tokens are HS256 JWTs signed with a random key made for each server instance, so tokens
/// of one instance are worthless to another.
public final class ReferenceAuthServer: Sendable {
    /// The configuration the server was created with.
    public let configuration: AuthServerConfiguration
    /// The fault switch of the refresh endpoints (test control).
    public let faults = RefreshFaults()

    private let users: UserDirectory
    private let statsRecorder = StatsRecorder()
    private let logger: Logger
    private let state = Locked(RunState())

    private struct RunState {
        var started = false
        var port: Int?
        var task: Task<Void, Never>?
        var group: ServiceGroup?
        var signing: SigningKeys?
        var components: ServerComponents?
    }

    private let identity: ServerIdentity
    private let idTokenFault = IDTokenFaultSetting()
    private let appleGrants = AppleGrants()

    /// Creates a stopped server; pre-registers ``AuthServerConfiguration/users``.
    /// Throws ``AuthServerConfigurationError`` for an unusable configuration.
    public init(configuration: AuthServerConfiguration) throws {
        try configuration.validate()
        self.configuration = configuration
        self.users = UserDirectory(users: configuration.users, iterations: configuration.passwordHashIterations)
        var logger = Logger(label: "vault-auth-server") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = configuration.logLevel
        self.logger = logger
        self.identity = ServerIdentity(issuerOverride: configuration.issuerOverride)
    }

    /// The bound port while running, else `nil`.
    public var port: Int? {
        state.withLock { $0.port }
    }

    /// `http://HOST:PORT` while running, else `nil`.
    public var baseURL: String? {
        port.map { "http://\(Self.urlHost(configuration.host)):\($0)" }
    }

    /// Binds and starts serving; returns the bound port once the server accepts connections.
    ///
    /// A server starts at most once; throws ``ReferenceAuthServerError/alreadyStarted`` on a
    /// second call, or the bind error when the address cannot be bound.
    @discardableResult
    public func start() async throws -> Int {
        let alreadyStarted = state.withLock { state in
            defer { state.started = true }
            return state.started
        }
        guard !alreadyStarted else { throw ReferenceAuthServerError.alreadyStarted }

        let (events, continuation) = AsyncStream<Result<Int, any Error>>.makeStream()
        let tokens = await TokenService.make()
        let signing = await SigningKeys.make()
        let identity = self.identity
        let service = AuthService(
            configuration: configuration, users: users, stats: statsRecorder, tokens: tokens, signing: signing,
            identity: identity, idTokenFault: idTokenFault)
        var apple: AppleService?
        if !configuration.appleClients.isEmpty {
            apple = AppleService(
                service: service, clients: await AppleClientDirectory.make(configuration.appleClients), grants: appleGrants,
                signing: await SigningKeys.make(.rs256))
        }
        let components = ServerComponents(
            service: service,
            stats: statsRecorder,
            faults: faults,
            configuration: configuration,
            grants: AuthorizationGrants(),
            apple: apple)
        state.withLock {
            $0.signing = signing
            $0.components = components
        }
        let configuration = self.configuration
        let urlHost = Self.urlHost(configuration.host)
        let app = Application(
            router: components.makeRouter(),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                identity.baseURL = "http://\(urlHost):\(port)"
                continuation.yield(.success(port))
            },
            logger: logger)
        var groupConfiguration = ServiceGroupConfiguration(services: [app], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = Self.gracefulShutdownLimit
        let group = ServiceGroup(configuration: groupConfiguration)
        let task = Task {
            do {
                try await group.run()
                continuation.yield(.failure(ReferenceAuthServerError.stoppedBeforeListening))
            } catch {
                continuation.yield(.failure(error))
            }
            continuation.finish()
        }
        state.withLock {
            $0.task = task
            $0.group = group
        }
        for await event in events {
            switch event {
            case .success(let port):
                state.withLock { $0.port = port }
                return port
            case .failure(let error):
                state.withLock {
                    $0.task = nil
                    $0.group = nil
                }
                throw error
            }
        }
        throw ReferenceAuthServerError.stoppedBeforeListening
    }

    /// How long ``stop()`` lets in-flight requests finish before cancelling them.
    static let gracefulShutdownLimit: Duration = .seconds(1)

    /// Stops serving and waits until the listening socket is closed: in-flight requests get
    /// up to a second to finish, then are cancelled; hanging fault replies end at once.
    /// Safe to call more than once.
    public func stop() async {
        let (task, group) = state.withLock { state in
            defer {
                state.task = nil
                state.group = nil
                state.port = nil
            }
            return (state.task, state.group)
        }
        guard let task else { return }
        if let group {
            await group.triggerGracefulShutdown()
        } else {
            task.cancel()
        }
        await task.value
    }

    // MARK: In-process test controls

    /// A snapshot of the counters served by `GET /api/stats`.
    public var stats: AuthServerStats {
        statsRecorder.snapshot()
    }

    /// The refresh-token rotations since the last drain, as JSON (what `POST
    /// /api/test/refresh_log` answers), which are then forgotten; nil before ``start()``.
    /// Recorded only with ``AuthServerConfiguration/testControls``.
    public func drainRefreshLog() -> String? {
        guard let service = state.withLock({ $0.components?.service }) else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(service.refreshLog.drain())).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Replaces the ID-token signing key (new `kid`; the old key leaves the JWKS); returns the
    /// new `kid`, or `nil` before ``start()``.
    @discardableResult
    public func rotateSigningKey() async -> String? {
        guard let signing = state.withLock({ $0.signing }) else { return nil }
        return await signing.rotate()
    }

    /// Replaces the RS256 key of the Sign in with Apple ID tokens (new `kid`; the old key leaves
    /// `GET /apple/auth/keys`); returns the new `kid`, or `nil` before ``start()`` or without
    /// an Apple client.
    @discardableResult
    public func rotateAppleSigningKey() async -> String? {
        guard let apple = state.withLock({ $0.components?.apple }) else { return nil }
        return await apple.signing.rotate()
    }

    /// Mints a Sign in with Apple authorization code, as Apple's authorization endpoint would
    /// after the user signed in (see ``AppleCodeRequest``; `POST /api/test/apple_code` over
    /// HTTP). The Apple user is registered as the user `apple:SUB` (so ``revokeRefreshTokens(login:)``
    /// and the like apply). `nil` without an Apple client, for an unknown `clientID`, without
    /// `clientID` when several clients are registered, for an empty `sub` or a negative `expiresIn`.
    public func mintAppleCode(_ request: AppleCodeRequest) -> String? {
        try? appleGrants.mint(request, clientIDs: configuration.appleClients.map(\.clientID), users: users).get()
    }

    /// Makes the discovery metadata (and ID tokens) name `issuer` instead of the base URL;
    /// `nil` restores the base URL.
    public func setIssuerOverride(_ issuer: String?) {
        identity.setIssuerOverride(issuer)
    }

    /// Makes every ID token issued from now on carry `fault` (``IDTokenFault/none`` ends it);
    /// no effect before ``start()``.
    public func setIDTokenFault(_ fault: IDTokenFault) {
        idTokenFault.current = fault
    }

    /// Answers the device request with `userCode` as its user would on the verification page:
    /// allow as `login`, or deny (`login` nil). `false` for an unknown, answered or expired
    /// code or an unknown login.
    @discardableResult
    public func decideDevice(userCode: String, allowAs login: String?) -> Bool {
        guard let components = state.withLock({ $0.components }) else { return false }
        let decision: DeviceDecision
        if let login {
            guard let user = components.service.users.userIdentity(login: login) else { return false }
            decision = .approved(user)
        } else {
            decision = .denied
        }
        return components.grants.decide(userCode: userCode, decision: decision)
    }

    /// Makes the next poll of `userCode`'s device code answer `slow_down`; `false` for an unknown code.
    @discardableResult
    public func requestSlowDown(userCode: String) -> Bool {
        state.withLock { $0.components }?.grants.requestSlowDown(userCode: userCode) ?? false
    }

    /// Access tokens issued from now on live `seconds`; those issued already keep their
    /// expiry. (Tests: a short first token that expires soon, then refreshed ones that outlive
    /// a loaded machine's slow processes.) Nothing happens before ``start()``.
    public func setAccessTokenLifetime(_ seconds: Double) {
        state.withLock { $0.components }?.service.setAccessTokenLifetime(seconds)
    }

    /// Sets every stats counter back to zero.
    public func resetStats() {
        statsRecorder.reset()
    }

    /// Registers a user; `false` if the login is taken. Not counted in stats.
    @discardableResult
    public func addUser(login: String, password: String) -> Bool {
        users.register(login: login, password: password) != nil
    }

    /// Kills every refresh token of `login` ("the refresh token died"); returns how many
    /// were live, or `nil` for an unknown login.
    @discardableResult
    public func revokeRefreshTokens(login: String) -> Int? {
        users.revokeRefreshTokens(login: login)
    }

    /// Invalidates every access token issued to `login` so far (later ones are fine);
    /// `false` for an unknown login.
    @discardableResult
    public func revokeAccessTokens(login: String) -> Bool {
        users.revokeAccessTokens(login: login)
    }

    /// Changes the password of `login` (existing tokens stay valid); `false` for an
    /// unknown login.
    @discardableResult
    public func setPassword(login: String, password: String) -> Bool {
        users.setPassword(login: login, password: password)
    }

    /// How many refresh tokens of `login` are live (used and revoked ones are not);
    /// `nil` for an unknown login.
    public func liveRefreshTokenCount(login: String) -> Int? {
        users.liveRefreshTokenCount(login: login)
    }

    private static func urlHost(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }
}

/// Lifecycle errors of ``ReferenceAuthServer``.
public enum ReferenceAuthServerError: Error, Sendable, Equatable {
    /// ``ReferenceAuthServer/start()`` was called twice.
    case alreadyStarted
    /// The server ended before it reported a listening socket.
    case stoppedBeforeListening
}
