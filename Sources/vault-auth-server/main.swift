// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import AuthServer
import Dispatch
import Foundation
import Logging

/// `vault-auth-server`: serves the reference auth API until SIGINT or SIGTERM.
///
/// The first line on stdout is `listening on http://HOST:PORT` (with the bound port)
/// once the server accepts connections; logs go to stderr.
struct VaultAuthServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vault-auth-server",
        abstract: "Serve the reference auth API (JWT access/refresh tokens, RFC 6749 token endpoint, OpenID Connect discovery, "
            + "authorization code with PKCE, device grant, revocation, ES256 ID tokens; Sign in with Apple under /apple)."
    )

    @Option(help: "Address to bind.")
    var host = "127.0.0.1"

    @Option(help: "Port to bind; 0 picks an ephemeral port.")
    var port = 0

    @Option(name: .customLong("access-ttl"), help: "Access token lifetime in seconds.")
    var accessTTL: Double = 60

    @Option(name: .customLong("refresh-ttl"), help: "Refresh token lifetime in seconds.")
    var refreshTTL: Double = 300

    @Option(
        name: .customLong("refresh-idle-ttl"),
        help: "Refresh token idle timeout in seconds (as Keycloak's SSO Session Idle); adds refresh_expires_in to token replies.")
    var refreshIdleTTL: Double?

    @Option(name: .customLong("user"), help: "Pre-register a user, LOGIN:PASSWORD (repeatable).")
    var users: [String] = []

    @Option(
        name: .customLong("users-file"),
        help: "Pre-register the users of this file, one LOGIN:PASSWORD a line (keeps the passwords out of the arguments).")
    var usersFile: String?

    @Option(name: .customLong("client"), help: "Register an OAuth client, ID:SECRET (repeatable).")
    var clients: [String] = []

    @Option(name: .customLong("public-client"), help: "Register a public OAuth client (no secret; PKCE S256 required), ID (repeatable).")
    var publicClients: [String] = []

    @Option(name: .customLong("code-ttl"), help: "Authorization code lifetime in seconds.")
    var codeTTL: Double = 60

    @Option(name: .customLong("device-expires-in"), help: "Device code lifetime in seconds (RFC 8628 expires_in).")
    var deviceExpiresIn: Double = 300

    @Option(name: .customLong("device-interval"), help: "Minimum device-code polling interval in seconds (RFC 8628 interval).")
    var deviceInterval: Double = 5

    @Option(
        name: .customLong("apple-client"),
        help: "Register a Sign in with Apple client, ID:TEAMID:KEYID:PUBLIC_KEY_PEM_FILE (the P-256 public key of its client secrets; repeatable)."
    )
    var appleClients: [String] = []

    @Flag(name: .customLong("test-controls"), help: "Serve the POST /api/test/... control endpoints (tests only).")
    var testControls = false

    @Option(name: .customLong("log-level"), help: "Log level on stderr (trace, debug, info, notice, warning, error, critical).")
    var logLevel = "warning"

    func validate() throws {
        guard accessTTL.isFinite, accessTTL > 0 else { throw ValidationError("--access-ttl must be positive") }
        guard refreshTTL.isFinite, refreshTTL > 0 else { throw ValidationError("--refresh-ttl must be positive") }
        if let refreshIdleTTL, !(refreshIdleTTL.isFinite && refreshIdleTTL > 0) {
            throw ValidationError("--refresh-idle-ttl must be positive")
        }
        for (flag, value) in [("--code-ttl", codeTTL), ("--device-expires-in", deviceExpiresIn), ("--device-interval", deviceInterval)] {
            guard value.isFinite, value > 0 else { throw ValidationError("\(flag) must be positive") }
        }
        guard publicClients.allSatisfy({ !$0.isEmpty && !$0.contains(":") }) else {
            throw ValidationError("--public-client expects an ID without a secret")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        for user in users where CredentialPair(parsing: user) == nil {
            throw ValidationError("--user expects LOGIN:PASSWORD")
        }
        _ = try loadUsersFile()
        for client in clients where CredentialPair(parsing: client) == nil {
            throw ValidationError("--client expects ID:SECRET")
        }
        let apple = try loadAppleClients()
        guard Set(apple.map(\.clientID)).count == apple.count else { throw ValidationError("--apple-client ids must be unique") }
    }

    /// The users of `--users-file` (none without it); a ValidationError for an unreadable file
    /// or a non-empty line that is not LOGIN:PASSWORD (the line's number only, never its text).
    func loadUsersFile() throws -> [CredentialPair] {
        guard let usersFile else { return [] }
        guard let data = FileManager.default.contents(atPath: usersFile), let text = String(data: data, encoding: .utf8) else {
            throw ValidationError("--users-file: cannot read \(usersFile)")
        }
        var pairs: [CredentialPair] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            guard let pair = CredentialPair(parsing: String(line)) else {
                throw ValidationError("--users-file: line \(index + 1) is not LOGIN:PASSWORD")
            }
            pairs.append(pair)
        }
        return pairs
    }

    /// The `--apple-client` values with their key files read; a ValidationError for a bad
    /// value, an unreadable file or a key that is not a P-256 public key.
    func loadAppleClients() throws -> [AppleClient] {
        try appleClients.map { value in
            let parts = value.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 4, parts.allSatisfy({ !$0.isEmpty }) else {
                throw ValidationError("--apple-client expects ID:TEAMID:KEYID:PUBLIC_KEY_PEM_FILE")
            }
            guard let data = FileManager.default.contents(atPath: parts[3]), let pem = String(data: data, encoding: .utf8) else {
                throw ValidationError("--apple-client \(parts[0]): cannot read the key file \(parts[3])")
            }
            let client = AppleClient(clientID: parts[0], teamID: parts[1], keyID: parts[2], publicKeyPEM: pem)
            do {
                try AuthServerConfiguration(appleClients: [client]).validate()
            } catch {
                throw ValidationError("--apple-client \(parts[0]): \(parts[3]) holds no P-256 public key in PEM")
            }
            return client
        }
    }

    /// Serves until SIGINT or SIGTERM.
    func serve() async throws {
        let fileUsers = try loadUsersFile()
        let configuration = AuthServerConfiguration(
            host: host,
            port: port,
            accessTokenLifetime: accessTTL,
            refreshTokenLifetime: refreshTTL,
            users: users.compactMap(CredentialPair.init(parsing:)) + fileUsers,
            clients: clients.compactMap(CredentialPair.init(parsing:)),
            testControls: testControls,
            logLevel: Logger.Level(rawValue: logLevel) ?? .warning,
            publicClients: publicClients,
            authorizationCodeLifetime: codeTTL,
            deviceCodeLifetime: deviceExpiresIn,
            deviceInterval: deviceInterval,
            appleClients: try loadAppleClients(),
            refreshTokenIdleLifetime: refreshIdleTTL
        )
        let server = try ReferenceAuthServer(configuration: configuration)
        let signals = SignalWaiter(signals: [SIGINT, SIGTERM])
        let boundPort = try await server.start()
        print("listening on http://\(host.contains(":") ? "[\(host)]" : host):\(boundPort)")
        fflush(nil)
        await signals.wait()
        await server.stop()
    }
}

/// Waits for the first of some signals (which are no longer fatal once this exists).
struct SignalWaiter {
    private let stream: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    init(signals: [Int32]) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        self.stream = stream
        self.sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    func wait() async {
        for await _ in stream { return }
    }
}

let command = VaultAuthServerCommand.parseOrExit()
do {
    try await command.serve()
} catch {
    VaultAuthServerCommand.exit(withError: error)
}
