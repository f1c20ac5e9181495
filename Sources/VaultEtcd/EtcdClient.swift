// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import VaultEtcdFormat
import VaultStore
import VaultSync

/// A small client of etcd's v3 JSON gateway over HTTP/1.1 (AsyncHTTPClient), blocking,
/// as a `SecureStore` is. Every call is bounded by ``EtcdConfiguration/timeout`` over all
/// endpoints together:
///
/// - an endpoint that refuses, times out or fails TLS is skipped for the next one;
/// - etcd's "no leader", "leader changed" and "request timed out" (an election, a lost
///   quorum) are retried on the next endpoint after a short pause, until the bound;
/// - when the bound passes, `.backendUnavailable` names every endpoint tried and what it
///   said, so a lost quorum never hangs a caller;
/// - etcd's authentication (`--etcd-user`) is done once per client and again once when
///   etcd says the token expired; a refused user or role is `.accessDenied`.
///
/// Redirects are never followed, and answers are capped at 64 MiB.
public final class EtcdClient: Sendable {
    /// What the client was made with.
    public let configuration: EtcdConfiguration
    private let password: Secret?
    /// The endpoint that answered last: the first one tried next time.
    private let preferred = Locked(0)
    /// etcd's authentication token, once had.
    private let token = Locked<String?>(nil)
    /// The `cluster_id` of the last answer's header.
    private let lastClusterID = Locked<String?>(nil)

    /// The cluster that answered (etcd's `cluster_id`, from the header of every answer of
    /// the JSON gateway), or nil before the first answer that carried one. A key derived
    /// for one cluster's fleet is kept under a name that includes it (``FleetFormat/cacheName(clusterID:prefix:record:)``).
    public var clusterID: String? { lastClusterID.withLock { $0 } }

    /// The largest answer accepted.
    static let maximumAnswer = 64 << 20

    /// A client for `configuration`; reads the password file and the TLS files now, so
    /// a missing or unreadable one is one line at once (`.invalidInput`).
    public init(configuration: EtcdConfiguration) throws(VaultError) {
        self.configuration = configuration
        password = try configuration.passwordFile.map { path throws(VaultError) in
            try PassphraseSource.readPassphraseFile(path, what: "etcd password file")
        }
        tls = try configuration.usesTLS ? Self.tls(configuration) : nil
    }

    /// The TLS settings of every request (the members' CAs, the client certificate), or nil
    /// for `http://` endpoints. Given per request, so one ``http`` serves every configuration
    /// (AsyncHTTPClient keys its connection pools by them).
    private let tls: TLSConfiguration?

    /// The one HTTP client of the process, made on first use and never shut down.
    ///
    /// Shutting an `HTTPClient` down while its pool still has a connection's bookkeeping in
    /// flight crashes the process: `HTTPClient.shutdown` runs on the calling thread and
    /// cancels the connections the pool believes leased, while the connections report
    /// "released" and "closed" from their event loops; the release of a request whose future
    /// has already completed can reach the pool after the pool dropped that connection,
    /// and the pool's state machine then stops the process (`preconditionFailure("A
    /// connection that we don't know was released?")`, SIGILL), about once in 2,000 short
    /// `vault load`s. A client that is never shut down has no such window; idle connections
    /// still close after the pool's idle timeout, and a process that ends takes the rest
    /// with it. So no ``EtcdClient`` owns (or shuts down) a client, and a long-lived
    /// process that makes many stores shares this one, as `HTTPClient.shared` is shared.
    private static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(2)), decompression: .disabled)
        // Each waiter for a refresh lock holds a connection for as long as it waits.
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        // A refused endpoint is skipped at once: with retries on, the pool would try it
        // again with back-off for the whole attempt (2 s) before the next one is tried.
        configuration.connectionPool.retryConnectionEstablishment = false
        // HTTP/1.1 only, never HTTP/2 (which etcd offers over TLS): AsyncHTTPClient 1.37's
        // HTTP/2 request handler force-unwraps a request that a stream reset arriving at the
        // wrong moment has already removed, and the process dies of SIGILL (its issue #922,
        // open; seen here as a `vault save` to a TLS member crashing on a fresh clone).
        configuration.httpVersion = .http1Only
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    private static func tls(_ configuration: EtcdConfiguration) throws(VaultError) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        do {
            if let ca = configuration.caFile {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(ca))
            }
            if let certificate = configuration.certificateFile, let key = configuration.keyFile {
                tls.certificateChain = try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) }
                tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
            }
        } catch {
            throw VaultError.invalidInput("cannot read the etcd TLS files").with(.givePEMFiles)
        }
        return tls
    }

    // MARK: - Calls

    /// Posts `body` (JSON) to `path` and decodes the answer, within the configured timeout
    /// (or `overall`), each endpoint getting at most `attemptTimeout` (default a third of it).
    func call<Answer: Decodable>(
        _ path: String, _ body: some Encodable, as: Answer.Type = Answer.self, overall: Duration? = nil,
        attemptTimeout: Duration? = nil
    ) throws(VaultError) -> Answer {
        let data: Data
        do {
            data = try JSONEncoder().encode(body)
        } catch {
            throw .invalidInput("cannot encode an etcd request")
        }
        let overall = overall ?? configuration.timeout
        // One stalled endpoint costs at most 2 s before the next is tried.
        let perAttempt = attemptTimeout ?? max(.seconds(1), min(.seconds(2), overall / 3))
        let deadline = ContinuousClock.now + overall
        let endpoints = configuration.endpoints
        let first = preferred.withLock { $0 } % endpoints.count
        var tried: [(endpoint: String, reason: String)] = []
        var reauthenticated = false
        var attempt = 0
        // Connections refused in a row: every endpoint twice means nothing listens at all.
        var refusedInARow = 0
        let noticeAt = ContinuousClock.now + EtcdWaitNotice.delay
        while true {
            let index = (first + attempt) % endpoints.count
            let endpoint = endpoints[index]
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw unavailable(tried, within: overall) }
            let limit = min(remaining, perAttempt)
            var outcome = Outcome.failed("not tried")
            if configuration.user != nil, token.withLock({ $0 }) == nil, let failure = authenticate(endpoint, limit: limit) {
                outcome = failure
            } else {
                outcome = send(endpoint, path, data, limit: limit)
            }
            if case .ok(let answer) = outcome {
                preferred.withLock { $0 = index }
                let headed: EtcdWire.Headed<Answer>
                do {
                    headed = try JSONDecoder().decode(EtcdWire.Headed<Answer>.self, from: answer)
                } catch {
                    throw .backendUnavailable("etcd at \(endpoint.absoluteString) gave an answer vault cannot read on \(path)")
                }
                if let cluster = headed.header?.cluster_id, !cluster.isEmpty { lastClusterID.withLock { $0 = cluster } }
                return headed.body
            }
            if Self.isRetryable(outcome) {
                tried.append((endpoint.absoluteString, outcome.reason))
                refusedInARow = outcome.reason == Self.connectionRefused ? refusedInARow + 1 : 0
                if refusedInARow >= 2 * endpoints.count { throw nothingListens(tried) }
                if ContinuousClock.now >= noticeAt { EtcdWaitNotice.say(tried, within: deadline - ContinuousClock.now) }
                attempt += 1
                // A pause once every endpoint was tried: an election takes a moment.
                if attempt % endpoints.count == 0 { Thread.sleep(forTimeInterval: min(0.25, 0.05 * Double(attempt / endpoints.count))) }
                continue
            }
            switch outcome {
            case .etcd(16, _) where configuration.user != nil && !reauthenticated:
                // The token expired (or the member restarted): authenticate again, once.
                reauthenticated = true
                token.withLock { $0 = nil }
            case .etcd(let code, let reason) where code == 7 || code == 16 || reason.contains("user name is empty"):
                let who = configuration.user.map { "user \"\(TextEscaping.escaped($0))\"" } ?? "the client"
                let refused = VaultError.accessDenied("etcd refused \(who) on \(path): \(reason)")
                // etcd's authentication is on and no user was given: the remedy is to give one.
                throw configuration.user == nil ? refused.with(.authenticate) : refused
            case .authenticationRefused(let reason):
                throw .accessDenied("etcd refused user \"\(TextEscaping.escaped(configuration.user ?? ""))\": \(reason)")
            case .refused(let reason):
                // A client certificate with a CN: the etcd user must come from the configuration.
                throw VaultError.backendUnavailable("etcd at \(endpoint.absoluteString) refused \(path): \(reason)").with(.authenticateByUser)
            default:
                throw .backendUnavailable("etcd at \(endpoint.absoluteString) refused \(path): \(outcome.reason)")
            }
        }
    }

    /// What one attempt on one endpoint gave.
    private enum Outcome {
        case ok(Data)
        /// No usable answer from this endpoint (refused, timed out, TLS, 5xx without etcd's body).
        case failed(String)
        /// etcd's gRPC status code and message.
        case etcd(Int, String)
        /// The user or password was refused.
        case authenticationRefused(String)
        /// A refusal that no other endpoint or retry changes.
        case refused(String)

        var reason: String {
            switch self {
            case .ok: "answered"
            case .failed(let reason), .etcd(_, let reason), .authenticationRefused(let reason), .refused(let reason): reason
            }
        }
    }

    private static func isRetryable(_ outcome: Outcome) -> Bool {
        switch outcome {
        case .failed: true
        // Canceled, DeadlineExceeded, ResourceExhausted, Aborted, Internal, Unavailable:
        // elections, lost quorum, overload.
        case .etcd(let code, _): [1, 4, 8, 10, 13, 14].contains(code)
        case .ok, .authenticationRefused, .refused: false
        }
    }

    /// Gets a token for the configured user from `endpoint`; nil when that worked, else the
    /// outcome to act on.
    private func authenticate(_ endpoint: URL, limit: Duration) -> Outcome? {
        let body = EtcdWire.AuthenticateRequest(
            name: configuration.user ?? "", password: String(decoding: password?.bytes ?? [], as: UTF8.self))
        guard let data = try? JSONEncoder().encode(body) else { return .failed("cannot encode") }
        switch send(endpoint, "/v3/auth/authenticate", data, limit: limit, authorized: false) {
        case .ok(let answer):
            guard let token = (try? JSONDecoder().decode(EtcdWire.AuthenticateResponse.self, from: answer))?.token, !token.isEmpty
            else { return .authenticationRefused("etcd gave no token (is authentication enabled?)") }
            self.token.withLock { $0 = token }
            return nil
        case .etcd(let code, let reason) where [3, 7, 9, 16].contains(code):
            return .authenticationRefused(reason)
        case let other:
            return other
        }
    }

    private func send(_ endpoint: URL, _ path: String, _ data: Data, limit: Duration, authorized: Bool = true) -> Outcome {
        let request: HTTPClient.Request
        do {
            var headers = HTTPHeaders([("Content-Type", "application/json"), ("Accept", "application/json")])
            if authorized, let token = token.withLock({ $0 }) { headers.add(name: "Authorization", value: token) }
            request = try HTTPClient.Request(
                url: endpoint.absoluteString + path, method: .POST, headers: headers, body: .bytes(Array(data)),
                tlsConfiguration: endpoint.scheme == "https" ? tls : nil)
        } catch {
            return .failed("not a usable URL")
        }
        let delegate = ResponseAccumulator(request: request, maxBodySize: Self.maximumAnswer)
        let nanoseconds = limit.components.seconds * 1_000_000_000 + limit.components.attoseconds / 1_000_000_000
        let task = Self.http.execute(request: request, delegate: delegate, deadline: .now() + .nanoseconds(max(1, nanoseconds)))
        let response: HTTPClient.Response
        do {
            response = try task.futureResult.wait()
        } catch {
            return .failed(Self.describe(error))
        }
        let body = response.body.map { Data($0.readableBytesView) } ?? Data()
        if response.status == .ok { return .ok(body) }
        if let error = try? JSONDecoder().decode(EtcdWire.ErrorBody.self, from: body), let code = error.code {
            return .etcd(code, Self.clean(error.message ?? error.error ?? "code \(code)"))
        }
        let text = String(decoding: body.prefix(80), as: UTF8.self)
        if response.status == .badRequest, text.contains("CommonName of client") {
            // etcd's gateway refuses such certificates while its authentication is on (CVE-2018-16886).
            return .refused(
                "etcd's JSON gateway refuses a client certificate with a Common Name while etcd authentication is on; "
                    + "give vault a certificate without a CN")
        }
        return .failed("HTTP \(response.status.code)\(text.isEmpty ? "" : ": " + Self.clean(text))")
    }

    /// A short, single-line reason for a transport error (never a secret: none is in them).
    private static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout: return "timed out"
            case .remoteConnectionClosed: return "closed the connection"
            default: break
            }
        }
        if error is NIOSSLError || String(describing: type(of: error)).contains("SSL") {
            return "TLS failed (\(clean(String(describing: error))))"
        }
        let text = String(describing: error)
        if text.contains("connectTimeout") || text.contains("deadline") { return "timed out" }
        if text.contains("refused") || text.contains("ECONNREFUSED") { return connectionRefused }
        if text.contains("UnknownHost") || text.contains("DNS error") { return "cannot resolve its host" }
        if text.contains("remoteConnectionClosed") || text.contains("reset by peer") { return "closed the connection" }
        if text.contains("ResponseTooBig") { return "answered with more than \(maximumAnswer >> 20) MiB" }
        return clean(text)
    }

    /// `text` on one line, escaped and at most 160 characters.
    private static func clean(_ text: String) -> String {
        let line = TextEscaping.escaped(text)
        return line.count > 160 ? String(line.prefix(160)) + "…" : line
    }

    /// The reason of an attempt whose connection was refused: nothing listened there.
    static let connectionRefused = "connection refused"

    /// Every endpoint refused the connection, twice (50 ms apart): no etcd runs there, and
    /// waiting out the timeout would only make a person wait.
    private func nothingListens(_ tried: [(endpoint: String, reason: String)]) -> VaultError {
        let endpoints = configuration.endpoints.map(\.absoluteString).joined(separator: ", ")
        return .backendUnavailable("no etcd accepts connections at \(endpoints) (connection refused): is etcd running there?")
    }

    private func unavailable(_ tried: [(endpoint: String, reason: String)], within overall: Duration) -> VaultError {
        var last: [String: String] = [:]
        var order: [String] = []
        for (endpoint, reason) in tried {
            if last[endpoint] == nil { order.append(endpoint) }
            last[endpoint] = reason
        }
        for endpoint in configuration.endpoints.map(\.absoluteString) where last[endpoint] == nil {
            order.append(endpoint)
            last[endpoint] = "not tried"
        }
        let reasons = order.map { "\($0) (\(last[$0] ?? ""))" }.joined(separator: ", ")
        let quorum = tried.contains { $0.reason.contains("leader") }
        return .backendUnavailable(
            "etcd did not answer within \(overall)\(quorum ? " (no leader: has the cluster lost its quorum?)" : ""); tried \(reasons)")
    }
}
