// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultSync
import VaultTestSupport

/// A crash of one of vault's programs never passes as an ordinary failure: `ChildProcess`
/// records an Issue for every child of ours that dies of a fault signal or prints the
/// runtime's crash report, whatever status the test expected. (Through `setsid --wait`,
/// a SIGILL is exit status 4, which is also vault's "backend unavailable".) Stand-ins
/// named `vault` crash on purpose here; the reports they cause are collected and checked
/// instead of recorded.
extension SynchronousProcessSuites {
    @Suite struct CrashDetectionTests {
        /// Runs a shell script installed as `vault` in a temporary directory; returns its
        /// result and the crash reports it caused (each would fail an ordinary test).
        ///
        /// A run the kernel refused because another test's child still held the new file open
        /// for writing (ETXTBSY, ``ScriptFile``) is run again, at most 50 times: a fresh
        /// clone's idle run once failed on it (stop 57).
        func runStandIn(_ script: String) throws -> (result: ProcessResult, reports: [String]) {
            try withTemporaryDirectory("vault-crash") { directory in
                let path = "\(directory)/vault"
                try ScriptFile.write("#!/bin/sh\n\(script)\n", to: path)
                var reports = Locked([String]())
                let result = try ScriptFile.retryingBusyRefusal {
                    let child = try ChildProcess(path, ["load", "--server", "s", "--account", "a"], environment: ["PATH": "/usr/bin:/bin"])
                    let attempt = Locked([String]())
                    reports = attempt
                    child.crashReported = { report in attempt.withLock { $0.append(report) } }
                    return try child.finish(timeout: 20)
                }
                return (result, reports.withLock { $0 })
            }
        }

        @Test func aFaultSignalIsAnIssueEvenWhenTheStatusLooksLikeAnOrdinaryFailure() throws {
            // (Not SIGABRT: the test runner's children may inherit it blocked.)
            for signal in ["ILL", "SEGV", "TRAP", "BUS"] {
                let (result, reports) = try runStandIn("kill -\(signal) $$")
                #expect(result.crash != nil, "SIG\(signal): status \(result.status), \(result.err)")
                #expect(reports.count == 1 && reports[0].contains("vault crashed: died of SIG\(signal)"), "SIG\(signal): \(reports)")
            }
        }

        @Test func aCrashReportOnStderrIsAnIssueWhateverTheStatus() throws {
            let reports = [
                "AsyncHTTPClient/HTTPConnectionPool+HTTP1Connections.swift:502: Fatal error: A connection that we don't know was released?",
                "💣 Program crashed: Illegal instruction at 0x0000",
                "Stack dump:",
            ]
            for report in reports {
                let quoted = report.replacingOccurrences(of: "'", with: "'\\''")
                let (result, recorded) = try runStandIn("printf '%s\\n' '\(quoted)' >&2; exit 4")
                #expect(result.status == 4 && result.crash != nil, "\(report): status \(result.status), \(result.err)")
                #expect(recorded.count == 1 && recorded[0].contains("vault crashed: printed a crash report"), "\(report): \(recorded)")
            }
        }

        /// What `runStandIn` retries is what the kernel says while a process holds the new
        /// script open for writing (as a child of another test does until its exec).
        @Test func aScriptHeldOpenForWritingIsRefusedUntilItIsClosed() throws {
            try withTemporaryDirectory("vault-busy") { directory in
                let path = "\(directory)/vault"
                try ScriptFile.write("#!/bin/sh\nexit 4\n", to: path)
                let held = open(path, O_WRONLY | O_CLOEXEC)
                #expect(held >= 0)
                let refused = try ChildProcess(path, [], environment: ["PATH": "/usr/bin:/bin"]).finish(timeout: 20)
                #expect(ScriptFile.isBusyRefusal(refused), "status \(refused.status), \(refused.err)")
                close(held)
                let ran = try ChildProcess(path, [], environment: ["PATH": "/usr/bin:/bin"]).finish(timeout: 20)
                #expect(ran.status == 4 && !ScriptFile.isBusyRefusal(ran), "status \(ran.status), \(ran.err)")
            }
        }

        @Test func anOrdinaryFailureAndAKillByTheTestAreNoCrash() throws {
            let (failed, reports) = try runStandIn("echo 'vault: etcd did not answer within 10 s' >&2; exit 4")
            #expect(failed.status == 4 && failed.crash == nil && reports.isEmpty, "\(reports)")
            let killed = try withTemporaryDirectory("vault-crash") { directory in
                let path = "\(directory)/vault"
                try ScriptFile.write("#!/bin/sh\nexec sleep 30\n", to: path)
                let child = try ChildProcess(path, [], environment: ["PATH": "/usr/bin:/bin"])
                usleep(100_000)
                child.kill()
                return try child.finish(timeout: 10)
            }
            #expect(killed.crash == nil, "SIGKILL from the test: \(killed.status) \(killed.err)")
        }
    }
}
