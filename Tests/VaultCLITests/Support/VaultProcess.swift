// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// Runs the built `vault` as a real child process (a `ChildProcess`: in a new session,
/// with no controlling terminal, output drained on threads of its own, a bounded run time).
enum VaultProcess {
    /// The `vault` binary beside this test bundle (override: `VAULT_BIN`).
    static let vaultPath: String = {
        if let path = ProcessInfo.processInfo.environment["VAULT_BIN"] { return path }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("vault").path
    }()

    /// Runs `vault ARGS` to completion (at most `timeout` seconds).
    @discardableResult
    static func vault(
        _ arguments: [String], environment: [String: String], stdin: Data? = nil, timeout: Double = 60
    ) throws -> ProcessResult {
        try ChildProcess.run(vaultPath, arguments, environment: environment, stdin: stdin, timeout: timeout)
    }

    /// Runs `vault ARGS` to completion without blocking the concurrency pool (tests that
    /// run a server in-process must use this: its handlers need the pool's threads).
    @discardableResult
    static func vaultAsync(
        _ arguments: [String], environment: [String: String], stdin: Data? = nil, timeout: Double = 60
    ) async throws -> ProcessResult {
        try await ChildProcess.runAsync(vaultPath, arguments, environment: environment, stdin: stdin, timeout: timeout)
    }

    /// The smallest environment a vault child needs: no D-Bus, no terminal, a HOME.
    static func baseEnvironment(home: String) -> [String: String] {
        var environment: [String: String] = [
            "HOME": home, "PATH": "/usr/bin:/bin", "VAULT_TEST_KDF_LOG2N": "10", "LANG": "C.UTF-8",
            // The kernel key cache is shared by every process of the user: off unless a test is about it.
            "VAULT_KEY_CACHE_TTL": "0",
        ]
        for name in ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"] {
            if let value = ProcessInfo.processInfo.environment[name] { environment[name] = value }
        }
        return environment
    }

    /// `baseEnvironment` with the file backend at `file` and its passphrase in `VAULT_PASSPHRASE`.
    static func fileBackendEnvironment(home: String, file: String, passphrase: String) -> [String: String] {
        var environment = baseEnvironment(home: home)
        environment["VAULT_BACKEND"] = "file"
        environment["VAULT_FILE"] = file
        environment["VAULT_PASSPHRASE"] = passphrase
        return environment
    }
}
