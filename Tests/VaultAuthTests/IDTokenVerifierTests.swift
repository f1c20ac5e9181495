// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import JWTKit
import Testing
import VaultHTTPClient
import VaultStore
import VaultTestSupport
import VaultTesting

@testable import VaultAuth

/// Claims as a test provider signs them; `aud` is an array when there are several.
private struct MintedClaims: JWTPayload {
    var iss = "https://issuer.test"
    var sub = "user-1"
    var aud: [String] = ["client-a"]
    var azp: String?
    var exp: Double
    var iat: Double
    var nonce: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(iss, forKey: .iss)
        try container.encode(sub, forKey: .sub)
        if aud.count == 1 { try container.encode(aud[0], forKey: .aud) } else { try container.encode(aud, forKey: .aud) }
        try container.encodeIfPresent(azp, forKey: .azp)
        try container.encode(exp, forKey: .exp)
        try container.encode(iat, forKey: .iat)
        try container.encodeIfPresent(nonce, forKey: .nonce)
    }

    private enum Keys: String, CodingKey { case iss, sub, aud, azp, exp, iat, nonce }

    func verify(using algorithm: some JWTAlgorithm) throws {}
}

/// A test provider: one ES256 key, its JWKS served by a fake transport, tokens minted at will.
private struct TestProvider {
    let key = ES256PrivateKey()
    let kid = "test-key-1"
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))

    var jwks: String {
        let parameters = key.publicKey.parameters!
        return #"{"keys":[{"kty":"EC","crv":"P-256","kid":"\#(kid)","use":"sig","alg":"ES256","x":"\#(parameters.x)","y":"\#(parameters.y)"}]}"#
    }

    func verifier(jwks override: String? = nil) -> (IDTokenVerifier, FakeTransport) {
        let body = Array((override ?? jwks).utf8)
        let transport = FakeTransport { _ in Reply(status: 200, body: body) }
        let verifier = IDTokenVerifier(
            issuer: "https://issuer.test", clientID: "client-a", jwksURL: URL(string: "https://issuer.test/jwks")!,
            transport: transport, clock: clock)
        return (verifier, transport)
    }

    func claims(_ change: (inout MintedClaims) -> Void = { _ in }) -> MintedClaims {
        let now = clock.now().timeIntervalSince1970
        var claims = MintedClaims(exp: now + 300, iat: now, nonce: "n-1")
        change(&claims)
        return claims
    }

    func sign(_ claims: MintedClaims, kid: String? = nil) async throws -> String {
        let collection = JWTKeyCollection()
        await collection.add(ecdsa: key, kid: JWKIdentifier(string: kid ?? self.kid))
        return try await collection.sign(claims, kid: JWKIdentifier(string: kid ?? self.kid))
    }

    /// A token with a hand-made header and no valid signature.
    func unsigned(header: String, _ claims: MintedClaims) throws -> String {
        let payload = try JSONEncoder().encode(claims)
        return Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload)) + ".c2lnbmF0dXJl"
    }
}

@Suite("IDTokenVerifier: signature, claims, key rotation", .offThePool)
struct IDTokenVerifierTests {
    @Test("a correct token passes and its claims come back; the JWKS is fetched once and kept")
    func accepts() async throws {
        let provider = TestProvider()
        let (verifier, transport) = provider.verifier()
        let claims = try await verifier.verify(try await provider.sign(provider.claims()), nonce: "n-1")
        #expect(claims.subject == "user-1" && claims.audiences == ["client-a"] && claims.nonce == "n-1")
        _ = try await verifier.verify(try await provider.sign(provider.claims()), nonce: "n-1")
        #expect(transport.requests.all.count == 1)
    }

    @Test("each failed check is refused with what failed")
    func refusals() async throws {
        let provider = TestProvider()
        let now = provider.clock.now().timeIntervalSince1970
        let cases: [(MintedClaims, String?, String)] = [
            (provider.claims { $0.iss = "https://other.test" }, "n-1", "another issuer"),
            (provider.claims { $0.aud = ["client-b"] }, "n-1", "another client"),
            (provider.claims { $0.aud = ["client-a", "client-b"] }, "n-1", "another party (azp)"),
            (
                provider.claims {
                    $0.aud = ["client-a", "client-b"]; $0.azp = "client-b"
                }, "n-1", "another party (azp)"
            ),
            (provider.claims { $0.exp = now - 200 }, "n-1", "expired"),
            (provider.claims { $0.iat = now + 600 }, "n-1", "in the future"),
            (provider.claims { $0.nonce = "n-2" }, "n-1", "nonce"),
            (provider.claims { $0.nonce = nil }, "n-1", "nonce"),
        ]
        for (claims, nonce, why) in cases {
            let (verifier, _) = provider.verifier()
            let token = try await provider.sign(claims)
            do throws(AuthError) {
                _ = try await verifier.verify(token, nonce: nonce)
                Issue.record("accepted, though \(why)")
            } catch {
                #expect(error.description.contains(why), "\(error)")
                #expect(ExitCodeOf.authentication(error))
            }
        }
        let (verifier, _) = provider.verifier()
        let several = provider.claims {
            $0.aud = ["client-a", "client-b"]; $0.azp = "client-a"
        }
        #expect(try await verifier.verify(try await provider.sign(several), nonce: "n-1").audiences.count == 2)
        let withinSkew = provider.claims { $0.exp = now - 60 }
        #expect(try await verifier.verify(try await provider.sign(withinSkew), nonce: "n-1").subject == "user-1")
    }

    @Test("alg none, HS256 and a damaged signature are refused")
    func algorithmsAndSignatures() async throws {
        let provider = TestProvider()
        let (verifier, _) = provider.verifier()
        let claims = provider.claims()
        for header in [#"{"alg":"none","kid":"test-key-1"}"#, #"{"alg":"HS256","kid":"test-key-1"}"#] {
            // The algorithm is refused, not the JWKS fetch or anything else.
            await #expect { try await verifier.verify(try provider.unsigned(header: header, claims), nonce: "n-1") } throws: {
                sameCase($0, as: AuthError.authentication("")) && "\($0)".contains("signature algorithm is not accepted")
            }
        }
        let forged = try provider.unsigned(header: #"{"alg":"ES256","kid":"test-key-1"}"#, claims)
        do throws(AuthError) {
            _ = try await verifier.verify(forged, nonce: "n-1")
            Issue.record("a forged signature passed")
        } catch {
            #expect(error.description.contains("signature does not verify"), "\(error)")
        }
    }

    @Test("a JWKS with entries that are not objects is read without them (no crash); a key without kid serves tokens without kid")
    func oddKeySets() async throws {
        let provider = TestProvider()
        let key = provider.jwks.replacingOccurrences(of: #"{"keys":["#, with: "").dropLast(2)
        let (verifier, _) = provider.verifier(jwks: #"{"keys":["text",1,null,true,[],"# + key + "]}")
        #expect(try await verifier.verify(try await provider.sign(provider.claims()), nonce: "n-1").subject == "user-1")

        let anonymous = String(key).replacingOccurrences(of: #""kid":"test-key-1","#, with: "")
        let (second, _) = provider.verifier(jwks: #"{"keys":["# + anonymous + "]}")
        let collection = JWTKeyCollection()
        await collection.add(ecdsa: provider.key)
        let withoutKid = try await collection.sign(provider.claims())
        #expect(try await second.verify(withoutKid, nonce: "n-1").subject == "user-1")
    }

    @Test("a header with crit (RFC 7515 §4.1.11) is refused")
    func criticalHeader() async throws {
        let provider = TestProvider()
        let (verifier, _) = provider.verifier()
        let token = try provider.unsigned(header: #"{"alg":"ES256","kid":"test-key-1","crit":["exp"],"exp":1}"#, provider.claims())
        do throws(AuthError) {
            _ = try await verifier.verify(token, nonce: "n-1")
            Issue.record("accepted")
        } catch {
            #expect(error.description.contains("critical header"), "\(error)")
        }
    }

    @Test("crit refuses even as null; a kid or use of another type, and a key with use enc, are not taken as given")
    func headerAndKeyQuirks() async throws {
        let provider = TestProvider()
        let (verifier, _) = provider.verifier()
        let nullCrit = try provider.unsigned(header: #"{"alg":"ES256","kid":"test-key-1","crit":null}"#, provider.claims())
        await #expect(throws: AuthError.self) { try await verifier.verify(nullCrit, nonce: "n-1") }
        let numericAlg = try provider.unsigned(header: #"{"alg":256,"kid":"test-key-1"}"#, provider.claims())
        do throws(AuthError) {
            _ = try await verifier.verify(numericAlg, nonce: "n-1")
            Issue.record("accepted an alg that is a number")
        } catch {
            #expect(error.description.contains("algorithm is not accepted"), "\(error)")
        }

        let key = String(provider.jwks.replacingOccurrences(of: #"{"keys":["#, with: "").dropLast(2))
        let signed = try await provider.sign(provider.claims())
        for use in [#""enc""#, "null", "1", #"["sig"]"#] {
            let (refusing, _) = provider.verifier(jwks: #"{"keys":["# + key.replacingOccurrences(of: #""sig""#, with: use) + "]}")
            do throws(AuthError) {
                _ = try await refusing.verify(signed, nonce: "n-1")
                Issue.record("a key with use \(use) verified a signature")
            } catch {
                #expect(error.description.contains("key the provider does not publish"), "\(use): \(error)")
            }
        }
        for keys in [#"{"keys":{}}"#, #"{"keys":null}"#, #"{}"#, #"[]"#] {
            let (unreadable, _) = provider.verifier(jwks: keys)
            do throws(AuthError) {
                _ = try await unreadable.verify(signed, nonce: "n-1")
                Issue.record("verified with the JWKS \(keys)")
            } catch {
                #expect(error.description.contains("not a key set"), "\(keys): \(error)")
            }
        }
    }

    @Test("claims: aud a string or a non-empty array of strings; optional claims of another type read as absent")
    func claimQuirks() throws {
        func claims(_ json: String) -> IDTokenClaims? { IDTokenClaims(payload: Array(json.utf8)) }
        let base = #""iss":"i","sub":"s","exp":2000000000,"iat":1"#
        #expect(claims("{\(base),\"aud\":\"a\"}")?.audiences == ["a"])
        #expect(claims("{\(base),\"aud\":[\"a\",\"b\"]}")?.audiences == ["a", "b"])
        for aud in ["[]", #"["a",1]"#, "null", "1", "{}"] {
            #expect(claims("{\(base),\"aud\":\(aud)}") == nil, "aud \(aud)")
        }
        for missing in ["iss", "sub", "exp", "iat"] {
            let fields = [#""iss":"i""#, #""sub":"s""#, #""exp":2000000000"#, #""iat":1"#, #""aud":"a""#]
            #expect(claims("{" + fields.filter { !$0.hasPrefix("\"\(missing)\"") }.joined(separator: ",") + "}") == nil, "without \(missing)")
            let quoted = fields.map { $0.hasPrefix("\"\(missing)\"") ? "\"\(missing)\":[1]" : $0 }
            #expect(claims("{" + quoted.joined(separator: ",") + "}") == nil, "\(missing) of another type")
        }
        let odd = claims(
            "{\(base),\"aud\":\"a\","
                + #""azp":1,"nonce":null,"email":["e"],"name":{},"email_verified":"true","is_private_email":"yes"}"#)
        #expect(odd?.authorizedParty == nil && odd?.nonce == nil && odd?.email == nil && odd?.name == nil)
        #expect(odd?.emailVerified == true && odd?.isPrivateEmail == nil)
        #expect(claims(#"{"iss":"first","iss":"second","sub":"s","aud":"a","exp":2000000000,"iat":1}"#)?.issuer == "first")
        #expect(claims("[1]") == nil && claims("not json") == nil)
        for times in [#""exp":1e300,"iat":1"#, #""exp":2000000000,"iat":-1e300"#, #""exp":253402300800,"iat":1"#] {
            #expect(claims(#"{"iss":"i","sub":"s","aud":"a","# + times + "}") == nil, "times past year 9999: \(times)")
        }
        #expect(claims(#"{"iss":"i","sub":"s","aud":"a","exp":253402300799,"iat":-1}"#) != nil)
    }

    @Test("an unknown kid makes it fetch the JWKS once more, then refuse")
    func unknownKid() async throws {
        let provider = TestProvider()
        let (verifier, transport) = provider.verifier()
        _ = try await verifier.verify(try await provider.sign(provider.claims()), nonce: "n-1")
        let other = try await provider.sign(provider.claims(), kid: "never-published")
        await #expect { try await verifier.verify(other, nonce: "n-1") } throws: {
            sameCase($0, as: AuthError.authentication("")) && "\($0)".contains("a key the provider does not publish")
        }
        #expect(transport.requests.all.count == 2, "one fetch at first use, one for the unknown kid")
    }

    @Test("keys that share a kid are each tried, in either order; a key of that kid but another alg is not; a stranger's key still fails")
    func keysSharingAKid() async throws {
        let provider = TestProvider()
        func entry(_ key: ES256PublicKey, alg: String = "ES256") -> String {
            let parameters = key.parameters!
            return #"{"kty":"EC","crv":"P-256","kid":"\#(provider.kid)","alg":"\#(alg)","x":"\#(parameters.x)","y":"\#(parameters.y)"}"#
        }
        let other = ES256PrivateKey().publicKey
        let token = try await provider.sign(provider.claims())
        for keys in [[entry(provider.key.publicKey), entry(other)], [entry(other), entry(provider.key.publicKey)]] {
            let (verifier, _) = provider.verifier(jwks: #"{"keys":["# + keys.joined(separator: ",") + "]}")
            #expect(try await verifier.verify(token, nonce: "n-1").subject == "user-1")
        }
        let (wrongAlg, _) = provider.verifier(jwks: #"{"keys":["# + entry(provider.key.publicKey, alg: "ES384") + "]}")
        await #expect { try await wrongAlg.verify(token, nonce: "n-1") } throws: {
            "\($0)".contains("its algorithm is not the one of its key")
        }
        let (strangers, _) = provider.verifier(jwks: #"{"keys":["# + entry(other) + "," + entry(ES256PrivateKey().publicKey) + "]}")
        await #expect { try await strangers.verify(token, nonce: "n-1") } throws: {
            "\($0)".contains("its signature does not verify")
        }
    }

    @Test("Core §12.2: a refresh's ID token must name the same user, issuer and audience")
    func refreshContinuity() async throws {
        let provider = TestProvider()
        let (verifier, _) = provider.verifier()
        let first = try await verifier.verify(try await provider.sign(provider.claims()), nonce: "n-1")
        let sameUser = try await provider.sign(provider.claims { $0.nonce = nil })
        #expect(try await verifier.verify(sameUser, nonce: nil, previous: first).subject == "user-1")
        let otherUser = try await provider.sign(
            provider.claims {
                $0.sub = "user-2"; $0.nonce = nil
            })
        await #expect { try await verifier.verify(otherUser, nonce: nil, previous: first) } throws: {
            sameCase($0, as: AuthError.authentication("")) && "\($0)".contains("another user")
        }
    }

    @Test("against the reference server: a device sign-in's ID token, then a refresh after the key rotated (one JWKS refetch)")
    func rotationAgainstTheServer() async throws {
        var configuration = AuthServerConfiguration(users: [CredentialPair(name: testUser, secret: testPassword)])
        configuration.publicClients = ["cli"]
        try await withReferenceServer(configuration) { running in
            let transport = AsyncHTTPTransport()
            defer { Task { await transport.shutdown() } }
            let metadata = try await ProviderMetadata.discover(issuer: running.url, transport: transport, timeout: .seconds(10))
            #expect(metadata.jwksURI == running.url + "/oauth/jwks")
            var settings = LoginSettings(provider: .oidc, serverURL: running.url, clientID: "cli", grant: .device, scope: "openid email")
            settings = settings.adopting(metadata)
            let provider = try OAuth2Provider(settings: settings, transport: transport)
            let device = try await provider.requestDeviceAuthorization(at: try #require(URL(string: metadata.deviceAuthorizationEndpoint ?? "")))
            #expect(running.server.decideDevice(userCode: device.userCode, allowAs: testUser))
            guard case .approved(let tokens) = try await provider.pollDevice(device) else {
                Issue.record("not approved")
                return
            }
            #expect(tokens.idToken != nil)
            let verifier = try #require(provider.idTokenVerifier)
            #expect(await verifier.fetches == 1)
            await running.server.rotateSigningKey()
            let refreshed = try await provider.refresh(tokens)
            #expect(refreshed.idToken != nil && refreshed.idToken != tokens.idToken)
            #expect(await verifier.fetches == 2, "the unknown kid made it fetch the rotated JWKS once")
            #expect(running.server.stats.jwksFetches == 2)

            // A refresh whose ID token fails a check keeps the rotated tokens (and the earlier ID token).
            running.server.setIDTokenFault(.issuedInFuture)
            let kept = try await provider.refresh(refreshed)
            #expect(kept.refreshToken != refreshed.refreshToken, "the rotated refresh token is kept")
            #expect(kept.idToken == refreshed.idToken, "the refused ID token is not")
            running.server.setIDTokenFault(.none)
            let next = try await provider.refresh(kept)
            #expect(next.idToken != kept.idToken, "the session goes on with the kept refresh token")
        }
    }
}

/// Whether an error is the authentication kind (exit 3).
private enum ExitCodeOf {
    static func authentication(_ error: AuthError) -> Bool {
        if case .authentication = error { return true }
        return false
    }
}
