// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// `VAULT_TEST_AGENT_BESIDE=1` (docs/testing.md): every `vault` command a test runs meets a
/// `vault agent` of its own user, as on a desktop where the systemd unit runs one. Before
/// each command (not `vault agent` itself) whose store exists (a vault file, or a keyring
/// on the bus), an agent is started for the command's HOME, once, with the command's own
/// environment, listening at `HOME/.agent-beside/agent.sock`; every command of that HOME
/// gets `XDG_RUNTIME_DIR` pointed there, so it finds the agent and tells it of logouts,
/// locks and new passphrases. An agent whose HOME is gone is stopped; all are at exit.
/// A test that places an agent itself (`VAULT_AGENT_SOCKET`, or an `XDG_RUNTIME_DIR` of
/// its own) is left alone. So the older hostile suites can be run again to show that no
/// promise of theirs depends on there being no agent.
///
/// Three agents, as users run them: `VAULT_TEST_AGENT_BESIDE=passphrase` (or `1`) starts it
/// with the command's passphrase variables, as a service is (it holds the key until
/// `vault lock`); `cache` starts it without them, as the desktop's unit is (it holds the
/// key only while the key cache does); `provider` starts it as `passphrase` does, and for
/// a vault file also as the Secret Service provider (`--secret-service`), on a session bus
/// of its own (`dbus-run-session`), since the tests' bus belongs to GNOME Keyring.
public enum AgentBeside {
    private static let mode = ProcessInfo.processInfo.environment["VAULT_TEST_AGENT_BESIDE"]
    static let enabled = ["1", "passphrase", "cache", "provider"].contains(mode)
    /// An agent that was given the passphrase runs beside the commands: it serves every
    /// process of the user until `vault lock`, with or without a passphrase or a key cache.
    public static let servesWithItsPassphrase = mode == "1" || mode == "passphrase" || mode == "provider"
    /// The agent beside a vault file is also its Secret Service provider.
    static let providesSecretService = mode == "provider"
    /// Any agent runs beside the commands.
    public static var isOn: Bool { enabled }

    private static let agents = NSLock()
    nonisolated(unsafe) private static var running: [String: ChildProcess] = [:]
    nonisolated(unsafe) private static var janitorStarted = false

    /// The environment `executable ARGS` runs with: `environment`, with the agent's
    /// runtime directory, after the agent was started when it is due.
    static func environment(for executable: String, _ arguments: [String], _ environment: [String: String]?) -> [String: String]? {
        guard enabled, executable.hasSuffix("/vault"), arguments.first != "agent", var environment,
            environment["VAULT_AGENT_SOCKET"] == nil, environment["VAULT_AGENT"] != "off", let home = environment["HOME"],
            environment["XDG_RUNTIME_DIR"] == nil || environment["XDG_RUNTIME_DIR"] == ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"]
        else { return environment }
        let runtime = home + "/.agent-beside"
        environment["XDG_RUNTIME_DIR"] = runtime
        let isFile = environment["VAULT_BACKEND"] == "file"
        let storeExists =
            isFile
            ? environment["VAULT_FILE"].map { FileManager.default.fileExists(atPath: $0) } ?? false
            : environment["DBUS_SESSION_BUS_ADDRESS"] != nil
        guard storeExists else { return environment }
        agents.lock()
        defer { agents.unlock() }
        if running[home]?.isRunning == true { return environment }
        guard mkdir(runtime, 0o700) == 0 || errno == EEXIST else { return environment }
        var agentEnvironment = environment
        if !servesWithItsPassphrase {
            for name in ["VAULT_PASSPHRASE", "VAULT_PASSPHRASE_FILE", "CREDENTIALS_DIRECTORY"] { agentEnvironment[name] = nil }
        }
        let agent =
            providesSecretService && isFile
            ? ["/usr/bin/dbus-run-session", "--", executable, "agent", "--secret-service"] : [executable, "agent"]
        running[home] = try? ChildProcess(
            "/usr/bin/timeout", ["-s", "TERM", "900"] + agent, environment: agentEnvironment, stdout: .discarded,
            stderr: .discarded)
        if !janitorStarted {
            janitorStarted = true
            atexit { AgentBeside.stopAll() }
            Thread.detachNewThread { janitor() }
        }
        return environment
    }

    /// Stops the agents whose HOME was removed (their test ended), every 2 s.
    private static func janitor() {
        while true {
            Thread.sleep(forTimeInterval: 2)
            agents.lock()
            let gone = running.filter { !FileManager.default.fileExists(atPath: $0.key) }
            for (home, agent) in gone {
                stop(agent)
                running[home] = nil
            }
            agents.unlock()
        }
    }

    /// SIGTERM to the agent; with a bus of its own, SIGKILL to everything under `timeout`
    /// (`dbus-run-session` passes no signal on), which leaves no bus or agent behind.
    private static func stop(_ agent: ChildProcess) {
        if providesSecretService { agent.kill() } else { agent.terminate() }
    }

    private static func stopAll() {
        agents.lock()
        for agent in running.values { stop(agent) }
        running = [:]
        agents.unlock()
    }
}
