// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Logging
import VaultSecretService
import VaultStore
import VaultTestSupport

/// A provider over a ``InMemoryServiceBacking`` on a private session bus, and the clients' tools
/// pointed at it.
struct ProviderHarness {
    let bus: PrivateSessionBus
    let backing: InMemoryServiceBacking
    let provider: SecretServiceProvider
    let log: LogCapture

    /// The environment of a client on this bus.
    var environment: [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin", "HOME": bus.directory, "LANG": "C.UTF-8"]
    }

    /// Runs `tool ARGS` as a client (at most 60 s).
    func run(_ tool: String, _ arguments: [String], stdin: String? = nil, timeout: Double = 60) async throws -> ProcessResult {
        try await ChildProcess.runAsync(tool, arguments, environment: environment, stdin: stdin.map { Data($0.utf8) }, timeout: timeout)
    }

    /// `secret-tool ARGS`.
    func secretTool(_ arguments: [String], stdin: String? = nil) async throws -> ProcessResult {
        try await run("/usr/bin/secret-tool", arguments, stdin: stdin)
    }

    /// `gdbus call` of `method` (`org.freedesktop.Secret.Service.OpenSession`) on `path`.
    func gdbus(_ path: String, _ method: String, _ arguments: [String] = []) async throws -> ProcessResult {
        try await run(
            "/usr/bin/gdbus", ["call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", path, "--method", method] + arguments)
    }

    /// Runs a Python script (with jeepney) as a client; its arguments follow.
    func python(_ script: String, _ arguments: [String] = [], timeout: Double = 120) async throws -> ProcessResult {
        let file = "\(bus.directory)/client-\(UUID().uuidString).py"
        try script.write(toFile: file, atomically: true, encoding: .utf8)
        return try await run("/usr/bin/python3", [file] + arguments, timeout: timeout)
    }
}

/// Runs `body` with a started provider over `backing`, stopped afterwards.
func withProvider<T>(_ backing: InMemoryServiceBacking = InMemoryServiceBacking(), _ body: (ProviderHarness) async throws -> T) async throws -> T {
    try await withPrivateSessionBus { bus in
        let log = LogCapture()
        let provider = SecretServiceProvider(backing: backing, logger: log.logger, busAddress: bus.address)
        try await provider.start()
        do {
            let result = try await body(ProviderHarness(bus: bus, backing: backing, provider: provider, log: log))
            await provider.stop()
            return result
        } catch {
            await provider.stop()
            throw error
        }
    }
}
