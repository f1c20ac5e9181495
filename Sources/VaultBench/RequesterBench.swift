// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AsyncHTTPClient
import AuthServer
import Foundation
import HTTPTypes
import Logging
import NIOCore
import Synchronization
import VaultAuth
import VaultHTTPClient
import VaultStore

/// Issue 4 and 5 figures: Requester throughput against a raw AsyncHTTPClient with a
/// fixed header (same out-of-process server, same run, concurrency 64; rate and CPU time
/// per request of the client alone), refresh-storm counts, and the
/// latency and HTTP-call count of a silent re-login against a plain login + request.
enum RequesterBench {
    static func run(vaultBinary: String, workDirectory: String) async throws {
        let serverBinary = URL(fileURLWithPath: vaultBinary).deletingLastPathComponent().appendingPathComponent("vault-auth-server").path
        try await throughput(serverBinary: serverBinary)
        try await refreshStorm(vaultBinary: vaultBinary, workDirectory: workDirectory)
        try await silentRelogin()
    }

    static func startServer(accessTTL: Double, refreshTTL: Double = 600) async throws -> (ReferenceAuthServer, URL) {
        let server = try ReferenceAuthServer(
            configuration: AuthServerConfiguration(
                accessTokenLifetime: accessTTL, refreshTokenLifetime: refreshTTL, users: [CredentialPair(name: "bench", secret: "bench-pw")]))
        let port = try await server.start()
        return (server, URL(string: "http://127.0.0.1:\(port)")!)
    }

    static func session(
        _ url: URL, transport: any HTTPTransport, store: any SecureStore = InMemoryStore(),
        lock: RefreshLock.Placement = .inProcessOnly
    ) -> AuthSession {
        var quiet = Logger(label: "vault.bench")
        quiet.logLevel = .error
        return AuthSession(
            store: store, server: url.absoluteString, account: "bench", transport: transport,
            configuration: .init(lock: lock), logger: quiet)
    }

    // MARK: throughput

    static func throughput(serverBinary: String) async throws {
        let server = try ExternalServer(binary: serverBinary, arguments: ["--access-ttl", "600", "--user", "bench:bench-pw"])
        defer { server.stop() }
        let url = server.url
        let pinning = CorePinning.apart(server: server.pid)
        defer { pinning?.undo() }
        let transport = AsyncHTTPTransport()
        let session = session(url, transport: transport)
        let tokens = try await session.login(settings: LoginSettings(serverURL: url.absoluteString), password: Secret("bench-pw"))
        let requester = try await session.requester()
        let target = URL(string: "\(url.absoluteString)/api/get_devs")!

        var raw = HTTPClient.Configuration(redirectConfiguration: .disallow)
        raw.httpVersion = .http1Only
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: raw)
        let header = "Bearer \(tokens.accessToken.utf8String!)"

        // Paired, interleaved rounds: each round measures both clients back to back, the
        // one going first alternating, after a warm-up round of each that is not counted;
        // the ratio is the median of the per-round ratios, printed with its spread.
        let total = 4_000
        let concurrency = 64
        let rounds = 31
        var table = Table(
            "Requester throughput (GET /api/get_devs, \(total) requests per round, concurrency \(concurrency), \(rounds) paired rounds "
                + "alternating which client goes first, server out of process\(pinning.map { ", \($0.description)" } ?? ", not pinned"))",
            columns: [
                "round", "raw AsyncHTTPClient + fixed header (requests/s)", "Requester (requests/s)", "ratio",
                "CPU µs/request raw", "CPU µs/request Requester",
            ])
        let rawClient: @Sendable () async throws -> Void = {
            var request = HTTPClientRequest(url: target.absoluteString)
            request.headers.add(name: "Authorization", value: header)
            let response = try await client.execute(request, timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 1 << 20)
            guard response.status.code == 200 else { throw AuthError.server(status: Int(response.status.code), message: "raw") }
        }
        let requesterClient: @Sendable () async throws -> Void = {
            let (response, _) = try await requester.send(HTTPRequest(method: .get, url: target))
            guard response.status == .ok else { throw AuthError.server(status: response.status.code, message: "requester") }
        }
        _ = try await rate(total: total, concurrency: concurrency, rawClient)
        _ = try await rate(total: total, concurrency: concurrency, requesterClient)
        var ratios: [Double] = []
        var rawCPU: [Double] = []
        var requesterCPU: [Double] = []
        for round in 1...rounds {
            let raw: (rate: Double, cpu: Double)
            let requester: (rate: Double, cpu: Double)
            if round % 2 == 1 {
                raw = try await measured(total: total, concurrency: concurrency, rawClient)
                requester = try await measured(total: total, concurrency: concurrency, requesterClient)
            } else {
                requester = try await measured(total: total, concurrency: concurrency, requesterClient)
                raw = try await measured(total: total, concurrency: concurrency, rawClient)
            }
            ratios.append(requester.rate / raw.rate)
            rawCPU.append(raw.cpu)
            requesterCPU.append(requester.cpu)
            table.add(
                "\(round)", String(format: "%.0f", raw.rate), String(format: "%.0f", requester.rate),
                String(format: "%.3f", requester.rate / raw.rate), String(format: "%.1f", raw.cpu), String(format: "%.1f", requester.cpu))
        }
        let sorted = ratios.sorted()
        let quartile = { (q: Double) in sorted[Int((Double(sorted.count - 1) * q).rounded())] }
        table.add(
            "**median**", "", "",
            String(
                format: "**%.3f** (quartiles %.3f–%.3f, range %.3f–%.3f; target ≥ 0.95)", Measure.median(ratios), quartile(0.25),
                quartile(0.75), sorted.first!, sorted.last!),
            String(format: "%.1f", Measure.median(rawCPU)),
            String(format: "%.1f (raw's × %.3f)", Measure.median(requesterCPU), Measure.median(requesterCPU) / Measure.median(rawCPU)))
        table.print()
        try await client.shutdown()
        await transport.shutdown()
    }

    /// The rate of `rate`, and this process's CPU time (user + system; the server runs in a
    /// process of its own, so this is the client's cost alone) per request.
    static func measured(
        total: Int, concurrency: Int, _ body: @escaping @Sendable () async throws -> Void
    ) async throws -> (rate: Double, cpu: Double) {
        let before = processCPUMicroseconds()
        let requests = try await rate(total: total, concurrency: concurrency, body)
        return (requests, (processCPUMicroseconds() - before) / Double(total))
    }

    static func processCPUMicroseconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let micro = { (time: timeval) in Double(time.tv_sec) * 1e6 + Double(time.tv_usec) }
        return micro(usage.ru_utime) + micro(usage.ru_stime)
    }

    static func rate(total: Int, concurrency: Int, _ body: @escaping @Sendable () async throws -> Void) async throws -> Double {
        let counter = SharedCounter()
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    while counter.value.add(1, ordering: .relaxed).newValue <= total { try await body() }
                }
            }
            try await group.waitForAll()
        }
        return Double(total) / (Measure.milliseconds(ContinuousClock.now - start) / 1000)
    }

    final class SharedCounter: Sendable {
        let value = Atomic<Int>(0)
    }

    // MARK: refresh storm

    static func refreshStorm(vaultBinary: String, workDirectory: String) async throws {
        var table = Table("Refresh storms at expiry", columns: ["scenario", "requests OK", "refresh calls at the server", "target"])

        let (server, url) = try await startServer(accessTTL: 2)
        let transport = AsyncHTTPTransport()
        let session = session(url, transport: transport)
        try await session.login(settings: LoginSettings(serverURL: url.absoluteString), password: Secret("bench-pw"))
        let requester = try await session.requester()
        try await Task.sleep(for: .milliseconds(1100))  // stale: within the leeway (1 s)
        let target = URL(string: "\(url.absoluteString)/api/get_devs")!
        let ok = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<1_000 {
                group.addTask { try await requester.send(HTTPRequest(method: .get, url: target)).response.status == .ok ? 1 : 0 }
            }
            return try await group.reduce(0, +)
        }
        table.add("1,000 concurrent requests, one Requester, token stale", "\(ok)/1000", "\(server.stats.refreshes)", "1")
        await transport.shutdown()
        await server.stop()

        let (server2, url2) = try await startServer(accessTTL: 3)
        let dir = "\(workDirectory)/storm"
        let environment = [
            "HOME": workDirectory, "VAULT_BACKEND": "file", "VAULT_FILE": "\(dir)/vault.db",
            "VAULT_PASSPHRASE": "bench", "VAULT_TEST_KDF_LOG2N": "10",
        ]
        let login = Process()
        login.executableURL = URL(fileURLWithPath: vaultBinary)
        login.arguments = ["login", "--server", url2.absoluteString, "--account", "bench"]
        login.environment = environment
        let pipe = Pipe()
        login.standardInput = pipe
        login.standardError = FileHandle.nullDevice
        try login.run()
        pipe.fileHandleForWriting.write(Data("bench-pw".utf8))
        try pipe.fileHandleForWriting.close()
        while login.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(3100))  // expired
        let processes = try (0..<16).map { _ in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: vaultBinary)
            process.arguments = ["request", "--server", url2.absoluteString, "--account", "bench", "/api/get_devs"]
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        for process in processes { while process.isRunning { try await Task.sleep(for: .milliseconds(10)) } }
        let succeeded = processes.filter { $0.terminationStatus == 0 }.count
        table.add("16 `vault request` processes, token expired (file backend)", "\(succeeded)/16", "\(server2.stats.refreshes)", "1")
        await server2.stop()
        table.print()
    }

    // MARK: silent re-login

    /// Counts the HTTP calls that pass through it.
    final class CountingTransport: HTTPTransport {
        let inner: AsyncHTTPTransport
        let calls = Atomic<Int>(0)
        init(_ inner: AsyncHTTPTransport) { self.inner = inner }
        func send(_ request: HTTPRequest, body: [UInt8]?, timeout: Duration) async throws(AuthError) -> (response: HTTPResponse, body: [UInt8]) {
            calls.add(1, ordering: .relaxed)
            return try await inner.send(request, body: body, timeout: timeout)
        }
    }

    static func silentRelogin() async throws {
        let (server, url) = try await startServer(accessTTL: 600)
        defer { Task { await server.stop() } }
        let inner = AsyncHTTPTransport()
        let transport = CountingTransport(inner)
        let target = URL(string: "\(url.absoluteString)/api/get_devs")!
        let settings = LoginSettings(serverURL: url.absoluteString)
        var relogin: [Double] = []
        var plain: [Double] = []
        var calls: Set<Int> = []
        for _ in 0..<25 {
            let session = session(url, transport: transport)
            try await session.login(settings: settings, password: Secret("bench-pw"))
            _ = server.revokeRefreshTokens(login: "bench")
            // Make the stored access token look expired, as after a long pause.
            var tokens = try await session.items.loadTokens()!
            tokens.accessTokenExpiry = Date().addingTimeInterval(-1)
            try await session.items.saveTokens(tokens)
            let requester = try await session.requester()
            transport.calls.store(0, ordering: .relaxed)
            let start = ContinuousClock.now
            let (response, _) = try await requester.send(HTTPRequest(method: .get, url: target))
            relogin.append(Measure.milliseconds(ContinuousClock.now - start))
            guard response.status == .ok else { throw AuthError.server(status: response.status.code, message: "relogin") }
            calls.insert(transport.calls.load(ordering: .relaxed))

            let provider = ReferenceAPIProvider(baseURL: url, transport: inner)
            let plainStart = ContinuousClock.now
            let fresh = try await provider.login(account: "bench", password: Secret("bench-pw"))
            let (plainResponse, _) = try await inner.send(
                HTTPRequest(method: .get, url: target, headerFields: [.authorization: "Bearer \(fresh.accessToken.utf8String!)"]),
                timeout: .seconds(10))
            plain.append(Measure.milliseconds(ContinuousClock.now - plainStart))
            guard plainResponse.status == .ok else { throw AuthError.server(status: plainResponse.status.code, message: "plain") }
        }
        var table = Table(
            "Silent re-login (dead refresh token), in-process server, 25 runs",
            columns: ["path", "median", "p95", "HTTP calls", "target"])
        table.add(
            "request with a dead refresh token (refresh → login → request, + store writes)",
            format(Measure.median(relogin)), format(Measure.percentile(relogin, 0.95)),
            calls.sorted().map(String.init).joined(separator: ", "), "exactly 3 calls")
        table.add("plain login + request", format(Measure.median(plain)), format(Measure.percentile(plain, 0.95)), "2", "")
        table.print()
        await inner.shutdown()
    }
}
