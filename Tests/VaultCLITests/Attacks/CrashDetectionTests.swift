// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// A crash of one of vault's programs never passes as an ordinary failure: `ChildProcess`
/// records an Issue for every child of ours that dies of a fault signal or prints the
/// runtime's crash report, whatever status the test expected. (Through `setsid --wait`,
/// a SIGILL is exit status 4, which is also vault's "backend unavailable".) Stand-ins
/// named `vault` crash on purpose here; the Issues they cause are the known ones.
extension SynchronousProcessSuites {
    @Suite struct CrashDetectionTests {
        /// Runs a shell script installed as `vault` in a temporary directory.
        func runStandIn(_ script: String) throws -> ProcessResult {
            try withTemporaryDirectory("vault-crash") { directory in
                let path = "\(directory)/vault"
                try "#!/bin/sh\n\(script)\n".write(toFile: path, atomically: true, encoding: .utf8)
                try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
                return try ChildProcess.run(path, ["load", "--server", "s", "--account", "a"], environment: ["PATH": "/usr/bin:/bin"], timeout: 20)
            }
        }

        @Test func aFaultSignalIsAnIssueEvenWhenTheStatusLooksLikeAnOrdinaryFailure() throws {
            // (Not SIGABRT: the test runner's children may inherit it blocked.)
            for signal in ["ILL", "SEGV", "TRAP", "BUS"] {
                var result: ProcessResult?
                try withKnownIssue("the stand-in dies of SIG\(signal)") {
                    result = try runStandIn("kill -\(signal) $$")
                } matching: { issue in
                    issue.comments.contains { $0.rawValue.contains("vault crashed") }
                }
                #expect(result?.crash != nil, "SIG\(signal): status \(result?.status ?? -1), \(result?.err ?? "")")
            }
        }

        @Test func aCrashReportOnStderrIsAnIssueWhateverTheStatus() throws {
            let reports = [
                "AsyncHTTPClient/HTTPConnectionPool+HTTP1Connections.swift:502: Fatal error: A connection that we don't know was released?",
                "💣 Program crashed: Illegal instruction at 0x0000",
                "Stack dump:",
            ]
            for report in reports {
                var result: ProcessResult?
                try withKnownIssue("the stand-in prints a crash report") {
                    let quoted = report.replacingOccurrences(of: "'", with: "'\\''")
                    result = try runStandIn("printf '%s\\n' '\(quoted)' >&2; exit 4")
                } matching: { issue in
                    issue.comments.contains { $0.rawValue.contains("vault crashed") }
                }
                #expect(result?.status == 4 && result?.crash != nil)
            }
        }

        @Test func anOrdinaryFailureAndAKillByTheTestAreNoCrash() throws {
            let failed = try runStandIn("echo 'vault: etcd did not answer within 10 s' >&2; exit 4")
            #expect(failed.status == 4 && failed.crash == nil)
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
