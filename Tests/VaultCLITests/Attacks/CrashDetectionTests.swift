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
        func runStandIn(_ script: String) throws -> (result: ProcessResult, reports: [String]) {
            try withTemporaryDirectory("vault-crash") { directory in
                let path = "\(directory)/vault"
                try "#!/bin/sh\n\(script)\n".write(toFile: path, atomically: true, encoding: .utf8)
                try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
                let child = try ChildProcess(path, ["load", "--server", "s", "--account", "a"], environment: ["PATH": "/usr/bin:/bin"])
                let reports = Locked([String]())
                child.crashReported = { report in reports.withLock { $0.append(report) } }
                let result = try child.finish(timeout: 20)
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
                #expect(result.status == 4 && result.crash != nil)
                #expect(recorded.count == 1 && recorded[0].contains("vault crashed: printed a crash report"), "\(report): \(recorded)")
            }
        }

        @Test func anOrdinaryFailureAndAKillByTheTestAreNoCrash() throws {
            let (failed, reports) = try runStandIn("echo 'vault: etcd did not answer within 10 s' >&2; exit 4")
            #expect(failed.status == 4 && failed.crash == nil && reports.isEmpty, "\(reports)")
            let killed = try withTemporaryDirectory("vault-crash") { directory in
                let path = "\(directory)/vault"
                try "#!/bin/sh\nexec sleep 30\n".write(toFile: path, atomically: true, encoding: .utf8)
                try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
                let child = try ChildProcess(path, [], environment: ["PATH": "/usr/bin:/bin"])
                usleep(100_000)
                child.kill()
                return try child.finish(timeout: 10)
            }
            #expect(killed.crash == nil, "SIGKILL from the test: \(killed.status) \(killed.err)")
        }
    }
}
