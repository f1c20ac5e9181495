// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

/// A typed client for the reference API, over ``RawHTTP``.
struct APIClient: Sendable {
    let port: Int
    var timeout: Double = Sanitizer.scaled(10.0)

    func get(_ path: String, bearer: String? = nil) async throws -> HTTPReply {
        var headers: [(String, String)] = []
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        return try await RawHTTP.request(port: port, method: "GET", path: path, headers: headers, timeout: timeout)
    }

    func post(
        _ path: String,
        body: String = "",
        contentType: String? = "application/json",
        headers extra: [(String, String)] = []
    ) async throws -> HTTPReply {
        var headers = extra
        if let contentType { headers.append(("Content-Type", contentType)) }
        return try await RawHTTP.request(
            port: port, method: "POST", path: path, headers: headers, body: Data(body.utf8), timeout: timeout)
    }

    func postJSON<T: Encodable>(_ path: String, _ value: T) async throws -> HTTPReply {
        try await post(path, body: String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
    }

    func register(_ login: String, _ password: String) async throws -> HTTPReply {
        try await postJSON("/api/register", AuthBody(login: login, password: password))
    }

    func login(_ login: String, _ password: String) async throws -> HTTPReply {
        try await postJSON("/api/login", AuthBody(login: login, password: password))
    }

    func refresh(_ refreshToken: String?) async throws -> HTTPReply {
        let headers = refreshToken.map { [("Authorization", "Bearer \($0)")] } ?? []
        return try await post("/api/refresh_tokens", body: "", headers: headers)
    }

    func developers(_ accessToken: String?) async throws -> HTTPReply {
        try await get("/api/get_devs", bearer: accessToken)
    }

    func stats() async throws -> AuthServerStats {
        try await get("/api/stats").decode()
    }

    /// `POST /oauth/token` with form fields (encoded here) and optional Basic credentials.
    func oauth(
        _ fields: [(String, String)], basic: (String, String)? = nil, contentType: String = "application/x-www-form-urlencoded"
    ) async throws -> HTTPReply {
        var headers: [(String, String)] = []
        if let basic {
            let raw = "\(formEncode(basic.0)):\(formEncode(basic.1))"
            headers.append(("Authorization", "Basic \(Data(raw.utf8).base64EncodedString())"))
        }
        let body = fields.map { "\(formEncode($0.0))=\(formEncode($0.1))" }.joined(separator: "&")
        return try await post("/oauth/token", body: body, contentType: contentType, headers: headers)
    }

    func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        return (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text).replacingOccurrences(of: "%20", with: "+")
    }
}

/// Expects a `{"code","message"}` error reply with this status and message.
func expectError(_ reply: HTTPReply, status: Int, message: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(reply.status == status, "status of \(reply.text)", sourceLocation: sourceLocation)
    let error = try? reply.decode(ErrorResponse.self)
    #expect(error == ErrorResponse(code: status, message: message), "body \(reply.text)", sourceLocation: sourceLocation)
}

/// Expects an RFC 6749 error reply.
func expectOAuthError(_ reply: HTTPReply, status: Int, error: OAuthErrorCode, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(reply.status == status, "status of \(reply.text)", sourceLocation: sourceLocation)
    let decoded = try? reply.decode(OAuthError.self)
    #expect(decoded?.error == error, "body \(reply.text)", sourceLocation: sourceLocation)
}

/// Runs `body` against a fresh in-process server on 127.0.0.1, an ephemeral port; always
/// stops it (`withReferenceServer`).
func withServer<T>(
    _ configuration: AuthServerConfiguration = AuthServerConfiguration(),
    _ body: (ReferenceAuthServer, APIClient) async throws -> T
) async throws -> T {
    try await withReferenceServer(configuration) { running in try await body(running.server, APIClient(port: running.port)) }
}

/// Current Unix time in milliseconds.
func nowMillis() -> Int64 {
    Int64(Date().timeIntervalSince1970 * 1000)
}

/// Test fixtures.
enum Fixture {
    static let user = CredentialPair(name: "ann", secret: "s3cret:with:colons")
    static let client = CredentialPair(name: "cli", secret: "client secret&=")
    static var configuration: AuthServerConfiguration {
        AuthServerConfiguration(users: [user], clients: [client])
    }
}
