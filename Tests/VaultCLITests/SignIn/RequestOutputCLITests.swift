// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// `vault request` as curl users expect: the body on stdout and the failure on a line of
/// its own, a 4xx called a client error with its status line, and `-d` as curl's.
@Suite(.offThePool) struct RequestOutputCLITests {
    @Test("a 404: the body exactly on stdout, 'HTTP 404 Not Found' as a client error on stderr, exit 5")
    func clientErrorIsCalledSo() async throws {
        try await withHostileOrigin({ _ in HostileServer.response(404, "no such thing", headers: [("Content-Type", "text/plain")]) }) { fixture, _ in
            let result = try await fixture.vault(["request", "/missing"])
            #expect(result.status == 5, "\(result.err)")
            #expect(result.out == "no such thing", "exact bytes into a pipe")
            #expect(result.err == "vault: HTTP 404 Not Found (client error: the server refused the request)\n", "\(result.err)")
            #expect(!result.err.contains("server error"))
        }
    }

    @Test("a 503: called a server error with its status line, exit 5")
    func serverErrorIsCalledSo() async throws {
        try await withHostileOrigin({ _ in HostileServer.response(503, "{}") }) { fixture, _ in
            let result = try await fixture.vault(["request", "/busy"])
            #expect(result.status == 5, "\(result.err)")
            #expect(result.err == "vault: HTTP 503 Service Unavailable (server error)\n", "\(result.err)")
        }
    }

    @Test("on a terminal a body without a newline gets one, so the error starts a line of its own")
    func bodyAndErrorOnSeparateLinesOnATerminal() async throws {
        try await withHostileOrigin({ _ in HostileServer.response(404, "tail-without-newline", headers: [("Content-Type", "text/plain")]) }) {
            fixture, _ in
            var environment = fixture.environment
            environment["TERM"] = "dumb"
            let arguments = ["request", "--server", fixture.server, "--account", "alice", "/missing"]
            let command = ([VaultProcess.vaultPath] + arguments).map { "'\($0)'" }.joined(separator: " ")
            let child = try ChildProcess(
                "script", ["-qec", command, "/dev/null"], environment: environment, keepingStdinOpen: true, stderr: .intoStdout)
            let result = try await child.finishAsync(timeout: 30)
            #expect(result.status == 5, "\(child.output)")
            let lines = child.output.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.contains("tail-without-newline"), "\(child.output)")
            #expect(lines.contains { $0.hasPrefix("vault: HTTP 404 Not Found") }, "\(child.output)")
        }
    }

    @Test("-d DATA: POST with curl's form content type, the body exactly")
    func dataImpliesPostAndAFormBody() async throws {
        try await withHostileOrigin({ _ in HostileServer.response(200, "ok") }) { fixture, origin in
            let result = try await fixture.vault(["request", "-d", "name=alice&x=1", "/form"])
            #expect(result.status == 0 && result.out == "ok", "\(result.err)")
            let sent = try #require(origin.received.last { $0.target == "/form" })
            #expect(sent.method == "POST")
            #expect(sent.header("Content-Type") == "application/x-www-form-urlencoded")
            #expect(sent.body == Array("name=alice&x=1".utf8))
        }
    }

    @Test("-d @FILE and -d @- read the body from a file and from stdin; -X and a Content-Type header win")
    func dataFromFileAndStdin() async throws {
        try await withHostileOrigin({ _ in HostileServer.response(200, "ok") }) { fixture, origin in
            let file = fixture.dir + "/body.json"
            try Data(#"{"from":"file"}"#.utf8).write(to: URL(fileURLWithPath: file))
            let fromFile = try await fixture.vault(["request", "-d", "@" + file, "-H", "Content-Type: application/json", "/file"])
            #expect(fromFile.status == 0, "\(fromFile.err)")
            let fileRequest = try #require(origin.received.last { $0.target == "/file" })
            #expect(fileRequest.method == "POST" && fileRequest.body == Array(#"{"from":"file"}"#.utf8))
            #expect(fileRequest.headers.filter { $0.name.lowercased() == "content-type" }.map(\.value) == ["application/json"])

            let fromStdin = try await fixture.vault(["request", "-X", "PUT", "-d", "@-", "/stdin"], stdin: "from stdin")
            #expect(fromStdin.status == 0, "\(fromStdin.err)")
            let stdinRequest = try #require(origin.received.last { $0.target == "/stdin" })
            #expect(stdinRequest.method == "PUT" && stdinRequest.body == Array("from stdin".utf8))

            let plain = try await fixture.vault(["request", "/plain"])
            #expect(plain.status == 0, "\(plain.err)")
            let get = try #require(origin.received.last { $0.target == "/plain" })
            #expect(get.method == "GET" && get.header("Content-Type") == nil, "no body: GET, no content type")
        }
    }

    @Test("as curl: -d twice is joined with &, a file's CR and LF are left out, --data-binary keeps them")
    func repeatedDataAndBinaryData() async throws {
        try await withHostileOrigin({ _ in HostileServer.response(200, "ok") }) { fixture, origin in
            let joined = try await fixture.vault(["request", "-d", "a=1", "-d", "b=2", "/joined"])
            #expect(joined.status == 0, "\(joined.err)")
            #expect(try #require(origin.received.last { $0.target == "/joined" }).body == Array("a=1&b=2".utf8))

            let file = fixture.dir + "/lines.txt"
            try Data("line1\r\nline2\n".utf8).write(to: URL(fileURLWithPath: file))
            let stripped = try await fixture.vault(["request", "-d", "@" + file, "/stripped"])
            #expect(stripped.status == 0, "\(stripped.err)")
            #expect(try #require(origin.received.last { $0.target == "/stripped" }).body == Array("line1line2".utf8))

            let exact = try await fixture.vault(["request", "--data-binary", "@" + file, "/exact"])
            #expect(exact.status == 0, "\(exact.err)")
            let exactRequest = try #require(origin.received.last { $0.target == "/exact" })
            #expect(exactRequest.method == "POST" && exactRequest.body == Array("line1\r\nline2\n".utf8))

            let twice = try await fixture.vault(["request", "-d", "@-", "--data-binary", "-", "/twice"], stdin: "x")
            #expect(twice.status == 2 && origin.received.last { $0.target == "/twice" } == nil, "\(twice.err)")
        }
    }
}
