// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// The real `vault agent --secret-service` on a private session bus (``PrivateSessionBus``:
/// nothing D-Bus-activated, so the only Secret Service there is vault's), serving a fresh
/// vault file in a test directory, and the real clients that talk to it: `secret-tool`,
/// `/usr/bin/python3` with Debian's keyring and SecretStorage, `vault` itself.
struct ProviderFixture: Sendable {
    /// The test's directory (HOME, the vault file, the passphrase file, the agent's socket).
    let directory: String
    /// The private bus's address.
    let busAddress: String
    /// The vault file's passphrase (in ``passphraseFile`` for the agent; tests search output for it).
    static let passphrase = "provider passphrase 5e0b-do-not-print"

    var file: String { directory + "/vault/vault.db" }
    var passphraseFile: String { directory + "/passphrase" }

    /// What every process of the test sees: the private bus, the file backend at ``file``
    /// with its passphrase file, the agent's socket in the test directory.
    var environment: [String: String] {
        var environment = VaultProcess.baseEnvironment(home: directory)
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        environment["XDG_RUNTIME_DIR"] = directory + "/run"
        environment["VAULT_BACKEND"] = "file"
        environment["VAULT_FILE"] = file
        environment["VAULT_PASSPHRASE_FILE"] = passphraseFile
        environment["VAULT_AGENT_SOCKET"] = directory + "/run/agent.sock"
        return environment
    }

    /// Starts `vault agent --secret-service` and waits (at most 60 s) until it logs that it serves.
    func startProvider(extra: [String: String] = [:]) async throws -> ChildProcess {
        let agent = try ChildProcess(
            VaultProcess.vaultPath, ["agent", "--secret-service"], environment: environment.merging(extra) { $1 }, stderr: .intoStdout)
        guard try await agent.waitForOutput(timeout: 60, until: { $0.contains("serving org.freedesktop.secrets") }) != nil else {
            agent.kill()
            Issue.record("vault agent --secret-service did not start: \(agent.output)")
            throw CancellationError()
        }
        return agent
    }

    /// Stops the provider with SIGTERM and expects a clean exit (at most 30 s).
    func stop(_ agent: ChildProcess) async throws {
        agent.terminate()
        let result = try await agent.finishAsync(timeout: 30)
        #expect(result.status == 0, "the provider's exit at SIGTERM: \(result.status) \(agent.output)")
        #expect(!agent.output.contains(Self.passphrase), "the passphrase in the agent's log")
    }

    /// `secret-tool ARGS` (stdin: the secret to store).
    func secretTool(_ arguments: [String], stdin: String? = nil, extra: [String: String] = [:]) async throws -> ProcessResult {
        try await ChildProcess.runAsync(
            "/usr/bin/secret-tool", arguments, environment: environment.merging(extra) { $1 }, stdin: stdin.map { Data($0.utf8) },
            timeout: 60)
    }

    /// `/usr/bin/python3 -c SCRIPT ARGS` with Debian's keyring and SecretStorage.
    func python(_ script: String, _ arguments: [String] = [], stdin: String? = nil) async throws -> ProcessResult {
        try await ChildProcess.runAsync(
            "/usr/bin/python3", ["-c", script] + arguments, environment: environment, stdin: stdin.map { Data($0.utf8) }, timeout: 60)
    }

    /// Whether the default collection is locked, as SecretStorage sees it ("True"/"False", or the error).
    func defaultCollectionLocked() async throws -> String {
        let result = try await python(
            "import secretstorage as s; c = s.dbus_init(); print(s.get_default_collection(c).is_locked())")
        return result.status == 0 ? result.out.trimmingCharacters(in: .whitespacesAndNewlines) : "error: \(result.err)"
    }

    /// `vault ARGS` with the fixture's environment.
    func vault(_ arguments: [String], stdin: String? = nil, extra: [String: String] = [:]) async throws -> ProcessResult {
        try await VaultProcess.vaultAsync(arguments, environment: environment.merging(extra) { $1 }, stdin: stdin.map { Data($0.utf8) })
    }

    /// A private bus, a test directory with the passphrase file, and `body`; the bus is
    /// stopped afterwards (a provider `body` left running dies with it).
    static func with(_ body: (ProviderFixture) async throws -> Void) async throws {
        try await withPrivateSessionBus { bus in try await with(bus: bus, body) }
    }

    /// A fixture on `bus`, which the caller stops (a test of the bus going away).
    static func with(bus: PrivateSessionBus, _ body: (ProviderFixture) async throws -> Void) async throws {
        try await withTemporaryDirectory("vault-ss-provider") { directory in
            for sub in ["vault", "run"] {
                try FileManager.default.createDirectory(
                    atPath: directory + "/" + sub, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            let fixture = ProviderFixture(directory: directory, busAddress: bus.address)
            _ = FileManager.default.createFile(
                atPath: fixture.passphraseFile, contents: Data((passphrase + "\n").utf8), attributes: [.posixPermissions: 0o600])
            try await body(fixture)
        }
    }

    /// `with`, and the provider started for `body`, stopped (SIGTERM, clean exit expected) afterwards.
    static func withProvider(
        extra: [String: String] = [:], _ body: (ProviderFixture, ChildProcess) async throws -> Void
    ) async throws {
        try await with { fixture in
            let agent = try await fixture.startProvider(extra: extra)
            do {
                try await body(fixture, agent)
            } catch {
                agent.kill()
                throw error
            }
            try await fixture.stop(agent)
        }
    }

    /// The repository's root.
    static let root: String = PackageRoot.path
}
