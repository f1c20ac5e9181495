// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AsyncHTTPClient
import AuthServer
import Foundation
import HTTPTypes
import JWTKit
import NIOCore
import VaultAuth
import VaultHTTPClient
import VaultStore

/// Issue 11 figures: from the browser's redirect to the loopback listener until the tokens
/// are stored (median of 20, against one raw token POST as the floor), and the cost of one
/// ID-token verification with a cached JWKS (against jwt-kit's bare signature check).
enum SignInBench {
    static func run() async throws {
        var configuration = AuthServerConfiguration(
            accessTokenLifetime: 600, refreshTokenLifetime: 600, users: [CredentialPair(name: "bench", secret: "bench-pw")])
        configuration.publicClients = ["cli"]
        let server = try ReferenceAuthServer(configuration: configuration)
        let port = try await server.start()
        defer { Task { await server.stop() } }
        let base = "http://127.0.0.1:\(port)"
        let transport = AsyncHTTPTransport()
        let browser = HTTPClient(
            eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))
        defer {
            Task {
                await transport.shutdown()
                try? await browser.shutdown()
            }
        }
        let metadata = try await ProviderMetadata.discover(issuer: base, transport: transport, timeout: .seconds(10))
        let settings = LoginSettings(provider: .oidc, serverURL: base, clientID: "cli", grant: .authorizationCode, scope: "openid email")
            .adopting(metadata)

        var redirectToStored: [Double] = []
        var idToken = ""
        for _ in 0..<20 {
            let store = InMemoryStore()
            let session = AuthSession(store: store, server: base, account: "bench", transport: transport)
            let provider = try session.oauthProvider(for: settings)
            let signIn = try BrowserSignIn(
                provider: provider, authorizationURL: URL(string: metadata.authorizationEndpoint!)!, openIDConnect: true)
            let redirectSent = Clocked()
            let tokens = try await signIn.run(
                present: { _ in },
                open: { url in
                    Task { try await Self.browse(url, client: browser, mark: redirectSent) }
                })
            try await session.adopt(tokens, settings: settings)
            redirectToStored.append(Measure.milliseconds(ContinuousClock.now - redirectSent.value))
            idToken = tokens.idToken?.utf8String ?? ""
        }
        let floor = try await rawTokenPosts(base: base, client: browser, count: 20)

        var table = Table(
            "Sign-in: browser redirect to tokens stored (in-process, InMemoryStore, 20 sign-ins)",
            columns: ["measure", "median", "p90"])
        table.add(
            "redirect → code exchange → ID token verified → stored", format(Measure.median(redirectToStored)),
            format(Measure.percentile(redirectToStored, 0.9)))
        table.add("floor: one raw token POST (AsyncHTTPClient, refresh grant)", format(Measure.median(floor)), format(Measure.percentile(floor, 0.9)))
        table.print()

        try await verification(idToken: idToken, metadata: metadata, transport: transport)
    }

    /// The browser's part: the start link (its redirect and cookie), the consent page, the form,
    /// then (timed from here) the redirect back with the cookie.
    static func browse(_ startURL: URL, client: HTTPClient, mark: Clocked) async throws {
        let start = try await client.execute(HTTPClientRequest(url: startURL.absoluteString), timeout: .seconds(10))
        guard let authorize = start.headers.first(name: "Location").flatMap(URL.init(string:)),
            let cookie = start.headers.first(name: "Set-Cookie")?.split(separator: ";").first
        else { return }
        let page = try await client.execute(HTTPClientRequest(url: authorize.absoluteString), timeout: .seconds(10))
        let html = String(buffer: try await page.body.collect(upTo: 1 << 20))
        var fields = html.matches(of: #/<input type="hidden" name="([^"]*)" value="([^"]*)">/#).map {
            (String($0.1), String($0.2).replacingOccurrences(of: "&amp;", with: "&"))
        }
        fields += [("login", "bench"), ("password", "bench-pw"), ("decision", "allow")]
        var post = HTTPClientRequest(url: authorize.scheme! + "://" + authorize.host! + ":\(authorize.port!)/oauth/authorize")
        post.method = .POST
        post.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        post.body = .bytes(ByteBuffer(string: fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")))
        let consent = try await client.execute(post, timeout: .seconds(10))
        guard let location = consent.headers.first(name: "Location") else { return }
        mark.value = ContinuousClock.now
        var callback = HTTPClientRequest(url: location)
        callback.headers.add(name: "Cookie", value: String(cookie))
        _ = try await client.execute(callback, timeout: .seconds(10))
    }

    static func rawTokenPosts(base: String, client: HTTPClient, count: Int) async throws -> [Double] {
        var times: [Double] = []
        for _ in 0..<count {
            var request = HTTPClientRequest(url: base + "/oauth/token")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: "grant_type=refresh_token&client_id=cli&refresh_token=unknown"))
            let start = ContinuousClock.now
            let response = try await client.execute(request, timeout: .seconds(10))
            _ = try await response.body.collect(upTo: 1 << 20)
            times.append(Measure.milliseconds(ContinuousClock.now - start))
        }
        return times
    }

    static func verification(idToken: String, metadata: ProviderMetadata, transport: any HTTPTransport) async throws {
        let verifier = IDTokenVerifier(
            issuer: metadata.issuer, clientID: "cli", jwksURL: URL(string: metadata.jwksURI!)!, transport: transport)
        _ = try await verifier.verify(idToken, nonce: nil)  // fills the JWKS cache
        let rounds = 2_000
        var start = ContinuousClock.now
        for _ in 0..<rounds { _ = try await verifier.verify(idToken, nonce: nil) }
        let vault = Measure.milliseconds(ContinuousClock.now - start) * 1000 / Double(rounds)

        let (_, jwks) = try await transport.send(HTTPRequest(method: .get, url: URL(string: metadata.jwksURI!)!), timeout: .seconds(10))
        let keys = try await JWTKeyCollection().add(jwksJSON: String(decoding: jwks, as: UTF8.self))
        start = ContinuousClock.now
        for _ in 0..<rounds { _ = try await keys.verify(idToken, as: Unchecked.self) }
        let bare = Measure.milliseconds(ContinuousClock.now - start) * 1000 / Double(rounds)

        var table = Table("ID-token verification with a cached JWKS (ES256, \(rounds) rounds)", columns: ["verifier", "per token"])
        table.add("vault IDTokenVerifier (signature + iss/aud/azp/exp/iat/nonce)", String(format: "%.1f µs", vault))
        table.add("jwt-kit JWTKeyCollection.verify, signature only", String(format: "%.1f µs", bare))
        table.print()
    }

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"))
            ?? ""
    }
}

/// A moment shared between the browser task and the timer.
final class Clocked: @unchecked Sendable {
    private let lock = NSLock()
    private var moment = ContinuousClock.now
    var value: ContinuousClock.Instant {
        get { lock.withLock { moment } }
        set { lock.withLock { moment = newValue } }
    }
}

/// A payload decoded without claim checks (jwt-kit's signature check alone).
private struct Unchecked: JWTPayload {
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
    func verify(using algorithm: some JWTAlgorithm) throws {}
}
