// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultAuth
import VaultStore
import VaultTestSupport

@testable import VaultFuzzing

/// The sign-in targets reach past the parsers' first refusals: their well-formed seeds are
/// accepted (so the invariants on accepted values run), and a changed one is refused.
@Suite("sign-in fuzz targets accept their well-formed seeds", .cpuBound)
struct AuthTargetsTests {
    static func seed(_ target: String, _ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: CorpusReplayTests.fuzzDirectory.appendingPathComponent("Corpus/\(target)/\(name)")))
    }

    @Test("ID tokens signed with the fixed keys verify; a changed one, another user's refresh, do not")
    func idTokens() throws {
        for name in ["rs256", "es256", "aud-array-azp"] {
            let token = String(decoding: try Self.seed("id-token", name), as: UTF8.self)
            let claims = try #require(try IDTokenTargets.verify(token, nonce: IDTokenTargets.nonce), "\(name) verifies")
            #expect(claims.subject == "user-1")
            for changed in IDTokenTargets.changes(of: token) {
                #expect(try IDTokenTargets.verify(changed, nonce: IDTokenTargets.nonce) == nil)
            }
        }
        let other = String(decoding: try Self.seed("id-token", "other-user"), as: UTF8.self)
        #expect(try IDTokenTargets.verify(other, nonce: IDTokenTargets.nonce) != nil)
        #expect(try IDTokenTargets.verify(other, nonce: nil, previous: IDTokenTargets.session) == nil)
        for name in ["expired", "wrong-nonce", "alg-none", "crit", "no-kid"] {
            let token = String(decoding: try Self.seed("id-token", name), as: UTF8.self)
            #expect(try IDTokenTargets.verify(token, nonce: IDTokenTargets.nonce) == nil, "\(name) is refused")
        }
    }

    @Test("the redirect with path, Host, cookie and state is taken; without the cookie the sign-in ends")
    func loopback() throws {
        #expect(try LoopbackTargets.answer(Self.seed("loopback-request", "callback-code")) == (.callback(.code("abc")), [200]))
        #expect(
            try LoopbackTargets.answer(Self.seed("loopback-request", "callback-error"))
                == (.callback(.error(code: "access_denied", description: "no way")), [200]))
        #expect(try LoopbackTargets.answer(Self.seed("loopback-request", "start")) == (nil, [302]))
        #expect(try LoopbackTargets.answer(Self.seed("loopback-request", "no-cookie")) == (.linkReused, [403]))
        #expect(try LoopbackTargets.answer(Self.seed("loopback-request", "wrong-state")) == (nil, [400]))
        #expect(try LoopbackTargets.answer(Self.seed("loopback-request", "wrong-host")) == (nil, [400]))
        // libFuzzer's finding: a 404 (a path cut short by `#`), then a pipelined /callback without
        // the cookie, which ends the sign-in, then bytes NIO refuses. The harness once read only
        // the first answer.
        let pipelined = try [UInt8](
            Data(contentsOf: CorpusReplayTests.fuzzDirectory.appendingPathComponent("Crashes/loopback-request/pipelined-404-then-no-cookie")))
        #expect(try LoopbackTargets.answer(pipelined) == (.linkReused, [404, 403, 400]))
        #expect(throws: Never.self) { try LoopbackTargets.request.check(pipelined) }
        // A refused request, then the right redirect: the one answered 200 is the one checked.
        let refusedFirst =
            Array("GET /x HTTP/1.1\r\nHost: 127.0.0.1:\(LoopbackTargets.port)\r\n\r\n".utf8) + (try Self.seed("loopback-request", "callback-code"))
        #expect(try LoopbackTargets.answer(refusedFirst) == (.callback(.code("abc")), [404, 200]))
        #expect(throws: Never.self) { try LoopbackTargets.request.check(refusedFirst) }
    }

    @Test("token, device and discovery seeds are accepted, so their invariants run")
    func documents() throws {
        let response = try Self.seed("token-response", "oauth-full")
        let provider = try OAuthResponseTargets.oauthProvider(response)
        let tokens = try AsyncRunner.run { () async -> TokenSet? in try? await provider.login(account: "a", password: Secret("p")) }
        #expect(tokens?.refreshToken?.utf8String == "rt-1")
        let metadata = try? ProviderMetadata.parse(try Self.seed("discovery", "openid"), expectedIssuer: DiscoveryTargets.issuer)
        #expect(metadata?.jwksURI == "https://accounts.example.com/jwks")
        #expect(WebURL.isCredentialSafe("http://127.0.0.1:8080/x") && !WebURL.isCredentialSafe("http://evil.example/"))
        #expect(!WebURL.isCredentialSafe("https://accounts.example.com@evil.example/"))
    }
}
