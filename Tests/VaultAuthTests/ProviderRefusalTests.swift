// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultTesting

@testable import VaultAuth

/// How answers out of the spec are classified: a refresh refused with a bare 400 or 401, a
/// revocation refused to a public client, an unknown client at the device endpoint
/// (docs/providers.md lists the providers that answer so).
@Suite("Provider refusals out of the spec", .offThePool)
struct ProviderRefusalTests {
    static let settings = LoginSettings(
        provider: .oauth2, serverURL: "https://api.example.com", tokenURL: "https://id.example.com/token", clientID: "cli",
        grant: .authorizationCode)

    static let tokens = TokenSet(
        accessToken: Secret("a1"), accessTokenExpiry: Date(), refreshToken: Secret("r1"), refreshTokenExpiry: nil, obtainedAt: Date())

    /// The provider of ``settings`` (plus a revocation endpoint) answering every request with `status` and `body`.
    func provider(_ status: Int, _ body: String) throws(AuthError) -> OAuth2Provider {
        var settings = Self.settings
        settings.revocationURL = "https://id.example.com/revoke"
        return try OAuth2Provider(settings: settings, transport: FakeTransport { _ in Reply(status: status, body: Array(body.utf8)) })
    }

    @Test(
        "a 400 or 401 to a refresh that names no error (empty, blank, JSON without error), or invalid_grant, is a refused refresh token",
        arguments: [(400, "", nil), (401, "", nil), (400, " \n", nil), (401, "{}", nil), (400, #"{"error":"invalid_grant"}"#, "invalid_grant")]
            as [(Int, String, String?)])
    func refusedRefresh(status: Int, body: String, code: String?) async throws {
        let error = await caughtError { () async throws(AuthError) in try await provider(status, body).refresh(Self.tokens) }
        guard case .authentication(let why, let providerCode, _)? = error else {
            Issue.record("\(status) \(body): \(String(describing: error))")
            return
        }
        #expect(providerCode == code)
        #expect(code == "invalid_grant" || why.contains("refused the refresh token (HTTP \(status), no error code)"), "\(why)")
    }

    @Test(
        "a refresh failure that blames the client, the server or a proxy keeps the session: not a refused refresh token",
        arguments: [
            (500, "", true), (503, #"{"error":"temporarily_unavailable"}"#, true), (429, "", true), (408, "", true), (403, "", false),
            (400, "<html>Request Header Or Cookie Too Large</html>", false), (401, "<html>proxy</html>", false),
            (400, #"{"error":"invalid_request"}"#, false), (401, #"{"error":"invalid_client"}"#, false),
            (400, #"{"error":"unauthorized_client"}"#, false), (400, #"{"error":"temporarily_unavailable"}"#, true),
            (503, #"{"error":"invalid_grant"}"#, true), (429, #"{"error":"invalid_grant"}"#, true),
        ] as [(Int, String, Bool)])
    func otherRefreshFailures(status: Int, body: String, transient: Bool) async throws {
        let error = try #require(await caughtError { () async throws(AuthError) in try await provider(status, body).refresh(Self.tokens) })
        #expect(!sameCase(error, as: AuthError.authentication("")), "\(error)")
        #expect(error.isTransient == transient, "\(error)")
    }

    @Test("a bare 400 to a password login stays a server error: only a refresh reads it as a refusal")
    func loginIsUnchanged() async throws {
        var settings = Self.settings
        settings.grant = .password
        let provider = try OAuth2Provider(settings: settings, transport: FakeTransport { _ in Reply(status: 400) })
        let error = await caughtError { () async throws(AuthError) in try await provider.login(account: "alice", password: Secret("pw")) }
        #expect(error == .server(status: 400, message: "the token endpoint failed"))
    }

    @Test(
        "a revocation refused with a 4xx says so with its status and code; a 5xx stays a transient failure",
        arguments: [
            (401, "", "the provider refused to revoke the token (HTTP 401)"),
            (401, #"{"error":"invalid_client"}"#, "the provider refused to revoke the token (HTTP 401, invalid_client)"),
            (400, #"{"error":"unsupported_token_type"}"#, "the provider refused to revoke the token (HTTP 400, unsupported_token_type)"),
            (403, "", "the provider refused to revoke the token (HTTP 403)"),
        ] as [(Int, String, String)])
    func refusedRevocation(status: Int, body: String, message: String) async throws {
        let error = await caughtError { () async throws(AuthError) in try await provider(status, body).revoke(Secret("r1"), hint: "refresh_token") }
        #expect(error == .server(status: status, message: message))
        #expect(error?.isTransient == false)
        let unavailable = await caughtError { () async throws(AuthError) in
            try await provider(503, "").revoke(Secret("r1"), hint: "refresh_token")
        }
        #expect(unavailable?.isTransient == true, "\(String(describing: unavailable))")
    }

    @Test(
        "the device endpoint's 403 unauthorized_client reads as a rejected client, as invalid_client does",
        arguments: [
            (403, "unauthorized_client"), (401, "invalid_client"),
        ] as [(Int, String)])
    func deviceClientRejected(status: Int, code: String) async throws {
        let error = await caughtError { () async throws(AuthError) in
            _ = try await provider(status, #"{"error":"\#(code)"}"#).requestDeviceAuthorization(at: URL(string: "https://id.example.com/device")!)
        }
        guard case .configuration(let why, code?, .checkClient?)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(why.contains("the OAuth client was rejected"), "\(why)")
    }

    @Test("naming fills the sign-in a message points to, once; other errors are unchanged")
    func naming() {
        let ended = AuthError.interactionRequired("dead").naming(server: "https://s.example", account: "a b")
        #expect(ended == .interactionRequired("dead", server: "https://s.example", account: "a b"))
        #expect(ended.remedy == .logIn(server: "https://s.example", account: "a b"))
        #expect(ended.naming(server: "https://other.example", account: "c") == ended, "a named error keeps its names")
        let noPassword = AuthError.authentication("no stored password", remedy: .logIn(server: nil, account: "a"))
        #expect(noPassword.naming(server: "https://s.example", account: "a").remedy == .logIn(server: "https://s.example", account: "a"))
        let client = AuthError.configuration("x", providerCode: "invalid_client", remedy: .checkClient)
        #expect(client.naming(server: "https://s.example", account: "a") == client)
        #expect(AuthError.network("x").naming(server: "https://s.example", account: "a") == .network("x"))
    }
}
