// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// The agent's log lines under systemd (issue 39 §4): when `JOURNAL_STREAM` names its
/// standard error, each line starts with its syslog priority and has no timestamp, so
/// `journalctl -p warning` shows the warnings; anywhere else, the usual lines.
@Suite("vault agent's lines for the journal", .offThePool) struct AgentJournalTests {
    /// Runs `vault agent -v` through `sh`, which sets `JOURNAL_STREAM` to the device and
    /// inode of the agent's standard error when `journal`, else to another file's; a client
    /// of another uid (when this test runs as root) draws a warning; then SIGTERM.
    func agentLines(journal: Bool) async throws -> [Substring] {
        try await withTemporaryDirectory("vault-journal") { directory in
            var environment = VaultProcess.fileBackendEnvironment(
                home: directory, file: directory + "/vault.db", passphrase: "journal-test-passphrase")
            let socket = directory + "/run/agent.sock"
            environment["VAULT_AGENT_SOCKET"] = socket
            let named = journal ? "/proc/self/fd/2" : "/dev/null"
            let script = "JOURNAL_STREAM=$(stat -L -c %d:%i \(named)) || exit 9; export JOURNAL_STREAM; exec \"$@\""
            let agent = try ChildProcess(
                "/bin/sh", ["-c", script, "sh", VaultProcess.vaultPath, "agent", "-v"], environment: environment, stderr: .intoStdout)
            defer { agent.kill() }
            guard try await agent.waitForOutput(timeout: 60, until: { $0.contains("serving at") }) != nil else {
                Issue.record("the agent did not start: \(agent.output)")
                return []
            }
            if getuid() == 0 {
                chmod(directory, 0o711)
                chmod(directory + "/run", 0o711)
                chmod(socket, 0o666)
                var stranger = environment
                stranger["HOME"] = "/nonexistent"
                let check = try await ChildProcess.runAsync(
                    "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", VaultProcess.vaultPath, "agent", "--check"],
                    environment: stranger, timeout: 30)
                #expect(check.status == 4, "\(check.err)")
                // The agent logs the refusal on its own time: wait for it (a bound on a hang only).
                _ = try await agent.waitForOutput(timeout: 60, until: { $0.contains("refused a connection from uid 65534") })
            }
            agent.terminate()
            let result = try await agent.finishAsync(timeout: 30)
            #expect(result.status == 0, "\(agent.output)")
            return agent.output.split(separator: "\n").filter { $0.contains("vault.agent: ") }
        }
    }

    @Test("JOURNAL_STREAM names stderr: <5> for the start line, <6> for -v's, <4> for a warning, no timestamp")
    func journalLines() async throws {
        let lines = try await agentLines(journal: true)
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(line.wholeMatch(of: /<[0-7]>vault\.agent: .*/) != nil, "\(line)")
            #expect(line.firstMatch(of: /\d{4}-\d\d-\d\dT\d\d:/) == nil, "a timestamp the journal records itself: \(line)")
        }
        #expect(lines.contains { $0.hasPrefix("<5>vault.agent: ") && $0.contains("serving at") }, "\(lines)")
        #expect(!lines.contains { $0.contains("not dumpable") }, "prctl(PR_SET_DUMPABLE, 0) took: \(lines)")
        #expect(lines.contains { $0.hasPrefix("<6>vault.agent: ") && $0.contains("stopping") }, "\(lines)")
        if getuid() == 0 {
            #expect(lines.contains { $0.hasPrefix("<4>vault.agent: refused a connection from uid 65534") }, "\(lines)")
        }
    }

    @Test("JOURNAL_STREAM naming another file: the usual lines, with their timestamps and levels")
    func otherStreamLines() async throws {
        let lines = try await agentLines(journal: false)
        #expect(!lines.isEmpty)
        for line in lines { #expect(!line.hasPrefix("<"), "\(line)") }
        #expect(lines.contains { $0.firstMatch(of: /^\d{4}-\d\d-\d\dT\d\d:.* notice vault\.agent: .*serving at/) != nil }, "\(lines)")
        if getuid() == 0 {
            #expect(lines.contains { $0.contains(" warning vault.agent: ") && $0.contains("refused a connection from uid 65534") }, "\(lines)")
        }
    }

    /// Attack review 58: the lines vault writes itself (not through the logger) had no
    /// priority, so `journalctl -p err` did not show why a unit failed.
    @Test(
        "under the journal, the error that ends a command is <3>, other lines <5>",
        arguments: [["load", "h.example.com", "nobody", "-v"], ["agent", "--check", "-v"]])
    func commandErrorLines(_ arguments: [String]) async throws {
        try await withTemporaryDirectory("vault-journal") { directory in
            var environment = VaultProcess.fileBackendEnvironment(
                home: directory, file: directory + "/vault.db", passphrase: "journal-test-passphrase")
            environment["VAULT_AGENT_SOCKET"] = directory + "/run/agent.sock"
            let script = "JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) || exit 9; export JOURNAL_STREAM; exec \"$@\""
            let result = try await ChildProcess.runAsync(
                "/bin/sh", ["-c", script, "sh", VaultProcess.vaultPath] + arguments, environment: environment, timeout: 60)
            #expect(result.status == (arguments[0] == "load" ? 1 : 4), "\(result.err)")
            let lines = result.err.split(separator: "\n")
            #expect(lines.last?.hasPrefix("<3>vault: ") == true, "\(result.err)")
            #expect(lines.dropLast().allSatisfy { $0.hasPrefix("<5>vault: ") }, "\(result.err)")
            if arguments[0] == "load" { #expect(lines.count >= 2, "-v's lines: \(result.err)") }
        }
    }
}
