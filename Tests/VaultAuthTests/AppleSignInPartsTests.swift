// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto
import Foundation
import JWTKit
import Testing
import VaultStore
import VaultTestSupport
import VaultTesting

@testable import VaultAuth

/// The Sign in with Apple parts that need no server: the client secret, the pending
/// profile's merge, and the e-mail claims Apple sends as booleans or strings.
@Suite("Sign in with Apple: client secret, pending profile, e-mail claims", .offThePool)
struct AppleSignInPartsTests {
    struct SecretClaims: JWTPayload {
        var iss: String
        var iat: Int
        var exp: Int
        var aud: String
        var sub: String
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    static func settings(_ key: P256.Signing.PrivateKey) -> AppleSettings {
        AppleSettings(teamID: "TEAM123456", keyID: "KEY7654321", privateKey: Secret(key.pemRepresentation))
    }

    @Test("the client secret is an ES256 JWT with Apple's header and claims, verifiable with the public key")
    func clientSecretClaims() async throws {
        let key = P256.Signing.PrivateKey()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let maker = AppleClientSecret(clientID: "com.example.app", settings: Self.settings(key), clock: clock, lifetime: 3600)
        let secret = try #require(try await maker.current().utf8String)
        let header = try #require(
            JSONSerialization.jsonObject(with: Data(Base64URL.decode(secret.split(separator: ".")[0]) ?? [])) as? [String: Any])
        #expect(header["alg"] as? String == "ES256" && header["kid"] as? String == "KEY7654321")
        let verifier = try await JWTKeyCollection().add(
            ecdsa: ES256PublicKey(pem: key.publicKey.pemRepresentation), kid: JWKIdentifier(string: "KEY7654321"))
        let claims = try await verifier.verify(secret, as: SecretClaims.self)
        #expect(claims.iss == "TEAM123456" && claims.sub == "com.example.app" && claims.aud == "https://appleid.apple.com")
        #expect(claims.iat == 1_800_000_000 && claims.exp == 1_800_003_600)
        // Another key does not verify it.
        let other = try await JWTKeyCollection().add(
            ecdsa: ES256PublicKey(pem: P256.Signing.PrivateKey().publicKey.pemRepresentation), kid: JWKIdentifier(string: "KEY7654321"))
        await #expect(throws: (any Error).self) { _ = try await other.verify(secret, as: SecretClaims.self) }
    }

    @Test("the client secret is reused until shortly before its exp, then made again")
    func clientSecretCache() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let maker = AppleClientSecret(
            clientID: "com.example.app", settings: Self.settings(P256.Signing.PrivateKey()), clock: clock, lifetime: 3600,
            renewBefore: 300)
        let first = try await maker.current()
        clock.advance(by: 3000)
        #expect(try await maker.current() == first, "still 600 s to go: the cached one")
        clock.advance(by: 400)
        #expect(try await maker.current() != first, "200 s to go: a new one")
    }

    @Test("a key that is not a P-256 PEM is a configuration error that shows no key text")
    func badKey() async throws {
        let settings = AppleSettings(teamID: "T", keyID: "K", privateKey: Secret("-----BEGIN PRIVATE KEY-----\nnot-a-key-3f9a\n"))
        let maker = AppleClientSecret(clientID: "c", settings: settings)
        do {
            _ = try await maker.current()
            Issue.record("a bad key made a secret")
        } catch {
            guard case .configuration(let message, _, _) = error else { Issue.record("\(error)"); return }
            #expect(message.contains("P-256") && !message.contains("not-a-key-3f9a"))
        }
    }

    @Test("a later sign-in without a name keeps the pending one; a new value replaces it")
    func pendingProfileMerge() {
        let first = PendingProfile(name: "Alice Example", email: "alice@privaterelay.appleid.com")
        #expect(first.updated(with: PendingProfile(name: "", email: nil)) == first)
        #expect(first.updated(with: nil) == first)
        #expect(first.updated(with: PendingProfile(name: "Alice B", email: nil)).name == "Alice B")
        #expect(PendingProfile(name: "", email: "").isEmpty)
    }

    @Test("email_verified and is_private_email read as booleans or as the strings true/false", arguments: [true, false])
    func emailFlags(asStrings: Bool) throws {
        let value = { (flag: Bool) in asStrings ? "\"\(flag)\"" : "\(flag)" }
        let payload = """
            {"iss":"https://appleid.apple.com","sub":"001","aud":"com.example.app","exp":2000000000,"iat":1800000000,\
            "email":"x@privaterelay.appleid.com","email_verified":\(value(true)),"is_private_email":\(value(true))}
            """
        let claims = try #require(IDTokenClaims(payload: Array(payload.utf8)))
        #expect(claims.emailVerified == true && claims.isPrivateEmail == true)
        #expect(claims.who.contains("private relay"))
        let odd = #"{"iss":"i","sub":"s","aud":"a","exp":2,"iat":1,"email_verified":1,"is_private_email":"yes"}"#
        let oddClaims = try #require(IDTokenClaims(payload: Array(odd.utf8)))
        #expect(oddClaims.emailVerified == nil && oddClaims.isPrivateEmail == nil, "a number or another string is not a flag")
    }

    @Test("the settings item keeps the Apple settings and the pending profile across encoding")
    func settingsRoundTrip() throws {
        var settings = LoginSettings.apple(
            serverURL: "https://api.example.com", clientID: "com.example.app",
            apple: AppleSettings(teamID: "T", keyID: "K", privateKey: Secret("pem"), baseURL: "http://127.0.0.1:9/apple/"))
        settings.pendingProfile = PendingProfile(name: "A", email: nil)
        let decoded = try #require(LoginSettings.decode(settings.encoded()))
        #expect(decoded == settings)
        #expect(decoded.tokenURL == "http://127.0.0.1:9/apple/auth/token" && decoded.issuer == "http://127.0.0.1:9/apple")
        #expect(!settings.description.contains("pem"))
    }

    @Test("a pending profile is bound to the first user whose sign-in succeeds with it, and dropped for another user")
    func profileBinding() {
        let waiting = PendingProfile(name: "Alice Example", email: "a@example.com")
        let alices = waiting.bound(to: "001.alice")
        #expect(alices == PendingProfile(name: "Alice Example", email: "a@example.com", subject: "001.alice"))
        #expect(alices?.bound(to: "001.alice") == alices, "the same user keeps it")
        #expect(alices?.bound(to: "002.bob") == nil, "another user does not get it")
        #expect(alices?.updated(with: PendingProfile(name: nil, email: "new@example.com")).subject == "001.alice")
        let data = try? JSONEncoder().encode(alices)
        #expect(data.flatMap { String(decoding: $0, as: UTF8.self).contains("\"sub\":\"001.alice\"") } == true)
        #expect(data.flatMap { try? JSONDecoder().decode(PendingProfile.self, from: $0) } == alices)
    }
}
