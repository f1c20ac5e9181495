// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

@Suite("Bad input gives 400, never a crash", .offThePool)
struct BadInputTests {
    @Test(
        "malformed JSON, wrong shapes and wrong types",
        arguments: [
            "{", "not json", "[]", "[1,2]", "\"text\"", "null", "42", #"{"login": 5, "password": "x"}"#,
            #"{"login": ["a"], "password": "x"}"#, "\u{FF}\u{FE}",
        ])
    func malformedJSON(body: String) async throws {
        try await withServer { _, client in
            for path in ["/api/register", "/api/login"] {
                expectError(try await client.post(path, body: body), status: 400, message: AuthServerMessages.malformedJSON)
            }
            #expect(try await client.get("/api/stats").status == 200)
        }
    }

    @Test(
        "missing or empty fields",
        arguments: [
            "{}", #"{"login":"a"}"#, #"{"password":"a"}"#, #"{"login":"","password":"x"}"#,
            #"{"login":"a","password":""}"#, #"{"login":null,"password":"x"}"#,
        ])
    func missingFields(body: String) async throws {
        try await withServer { _, client in
            for path in ["/api/register", "/api/login"] {
                expectError(try await client.post(path, body: body), status: 400, message: AuthServerMessages.missingCredentials)
            }
        }
    }

    @Test(
        "wrong or missing content type",
        arguments: [
            Optional("text/plain"), Optional("application/x-www-form-urlencoded"), Optional("application/jsonp"), nil,
        ])
    func wrongContentType(contentType: String?) async throws {
        try await withServer { _, client in
            let body = #"{"login":"a","password":"b"}"#
            for path in ["/api/register", "/api/login"] {
                expectError(
                    try await client.post(path, body: body, contentType: contentType),
                    status: 400, message: AuthServerMessages.unsupportedContentType)
            }
            // Parameters and case of the media type are fine.
            #expect(try await client.post("/api/register", body: body, contentType: "Application/JSON; charset=utf-8").status == 200)
        }
    }

    @Test("oversized bodies are refused")
    func oversizedBody() async throws {
        try await withServer { _, client in
            let big = #"{"login":"a","password":""# + String(repeating: "x", count: 70 * 1024) + #""}"#
            expectError(try await client.post("/api/register", body: big), status: 400, message: AuthServerMessages.bodyTooLarge)
            expectError(try await client.post("/api/login", body: big), status: 400, message: AuthServerMessages.bodyTooLarge)
            let form = "grant_type=password&username=a&password=" + String(repeating: "x", count: 70 * 1024)
            expectOAuthError(
                try await client.post("/oauth/token", body: form, contentType: "application/x-www-form-urlencoded"),
                status: 400, error: .invalidRequest)
            // Just under the cap is fine.
            let fits = #"{"login":"big","password":""# + String(repeating: "y", count: 60 * 1024) + #""}"#
            #expect(try await client.post("/api/register", body: fits).status == 200)
            // The server still works.
            #expect(try await client.register("after", "pw").status == 200)
        }
    }

    @Test("a chunked oversized body without Content-Length is refused too")
    func oversizedChunkedBody() async throws {
        try await withServer { _, client in
            let chunk = String(repeating: "z", count: 16 * 1024)
            var raw =
                "POST /api/register HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            for _ in 0..<5 {
                raw += String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n"
            }
            raw += "0\r\n\r\n"
            let reply = try await RawHTTP.exchange(port: client.port, bytes: Data(raw.utf8), timeout: 10)
            expectError(reply, status: 400, message: AuthServerMessages.bodyTooLarge)
        }
    }
}
