// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import Testing
import VaultStore
import VaultTestSupport
import VaultTesting

@testable import VaultAuth

/// How vault reads OAuth responses as providers in the wild write them: seconds as numbers
/// or quoted digits (`expires_in`, `interval`, `refresh_expires_in`), a field of the wrong
/// type, `null`, a name given twice. One test per quirk, through the real provider.
@Suite("OAuth responses: the quirks of real providers", .offThePool)
struct OAuthResponseQuirkTests {
    static let now = Date(timeIntervalSince1970: 1_767_225_600)

    /// An OAuth provider whose every answer is `body` with `status`.
    func provider(_ body: String, status: Int = 200) throws -> OAuth2Provider {
        try OAuth2Provider(
            settings: LoginSettings(
                provider: .oauth2, serverURL: "https://api.example.test", tokenURL: "https://auth.example.test/token", clientID: "c",
                grant: .password),
            transport: FakeTransport { _ in Reply(status: status, body: Array(body.utf8)) }, clock: ManualClock(Self.now))
    }

    func tokens(_ fields: String) async throws -> TokenSet {
        try await provider(#"{"access_token":"a","token_type":"Bearer"\#(fields)}"#).login(account: "u", password: Secret("p"))
    }

    func device(_ fields: String) async throws -> DeviceAuthorization {
        try await provider(#"{"device_code":"d","user_code":"U-1","verification_uri":"https://id.example.test/device"\#(fields)}"#)
            .requestDeviceAuthorization(at: URL(string: "https://id.example.test/device_authorization")!)
    }

    @Test("expires_in: a number, quoted digits, null or absent (3600)")
    func expiresIn() async throws {
        for (fields, seconds) in [
            (#","expires_in":60"#, 60.0), (#","expires_in":"60""#, 60), (#","expires_in":60.5"#, 60.5), ("", 3600),
            (#","expires_in":null"#, 3600),
        ] {
            let got = try await tokens(fields).accessTokenExpiry.timeIntervalSince(Self.now)
            #expect(got == seconds, "\(fields)")
        }
    }

    @Test("expires_in that is no usable number of seconds is the server's error, never a guess")
    func expiresInRefused() async throws {
        for fields in [
            #","expires_in":"6O""#, #","expires_in":"-60""#, #","expires_in":0"#, #","expires_in":true"#, #","expires_in":[60]"#,
            #","expires_in":"1234567890123""#, #","expires_in":1e12"#,
        ] {
            await #expect(throws: AuthError.self, "\(fields)") { try await tokens(fields) }
        }
    }

    @Test("device grant: a 2xx token answer vault cannot use ends the sign-in; the spent code is never redeemed again")
    func spentDeviceCode() async throws {
        let transport = FakeTransport { sent in
            let body =
                sent.url.path.hasSuffix("/device_authorization")
                ? #"{"device_code":"d","user_code":"U-1","verification_uri":"https://id.example.test/device","interval":1}"#
                : #"{"access_token":"a","token_type":"Bearer","expires_in":1e400}"#
            return Reply(status: 200, body: Array(body.utf8))
        }
        let provider = try OAuth2Provider(
            settings: LoginSettings(
                provider: .oauth2, serverURL: "https://api.example.test", tokenURL: "https://auth.example.test/token", clientID: "c",
                grant: .device),
            transport: transport, clock: ManualClock(Self.now))
        let signIn = try DeviceSignIn(
            provider: provider, deviceURL: URL(string: "https://id.example.test/device_authorization")!, timeout: .seconds(30))
        await #expect {
            try await signIn.run { _ in }
        } throws: {
            sameCase($0, as: AuthError.server(status: 200, message: ""))
        }
        #expect(transport.requests.all.filter { $0.url.path == "/token" }.count == 1, "\(transport.requests.all.map(\.url.path))")
    }

    @Test("device grant interval: quoted digits count like a number (they were ignored), clamped to 1...60 s")
    func interval() async throws {
        for (fields, seconds) in [
            (#","interval":10"#, 10.0), (#","interval":"10""#, 10), ("", 5), (#","interval":null"#, 5),
            (#","interval":"ten""#, 5), (#","interval":{}"#, 5), (#","interval":"0""#, 1), (#","interval":600"#, 60),
        ] {
            #expect(try await device(fields).interval == seconds, "\(fields)")
        }
        #expect(try await device(#","expires_in":"900""#).expiresIn == 900)
    }

    @Test("refresh_expires_in: a number or quoted digits; zero, negative or garbage leaves the expiry unknown")
    func refreshExpiresIn() async throws {
        let withRefresh = #","refresh_token":"r""#
        #expect(try await tokens(withRefresh + #","refresh_expires_in":"1800""#).refreshTokenExpiry == Self.now.addingTimeInterval(1800))
        #expect(try await tokens(withRefresh + #","refresh_expires_in":1800"#).refreshTokenExpiry == Self.now.addingTimeInterval(1800))
        for garbage in [#","refresh_expires_in":0"#, #","refresh_expires_in":-5"#, #","refresh_expires_in":"soon""#, ""] {
            #expect(try await tokens(withRefresh + garbage).refreshTokenExpiry == nil, "\(garbage)")
        }
    }

    @Test("a refresh_token or token_type of another type: ignored, or the token_type error")
    func wrongTypes() async throws {
        #expect(try await tokens(#","refresh_token":42"#).refreshToken == nil)
        let body = #"{"access_token":"a","token_type":7}"#
        await #expect {
            try await provider(body).login(account: "u", password: Secret("p"))
        } throws: {
            "\($0)".contains("token_type none")
        }
    }

    @Test("an error body whose error is not a string names no code; one given twice counts once, the first")
    func errorBodies() {
        let number = OAuth2Provider.classify(.init(status: .badRequest), body: Array(#"{"error":400}"#.utf8))
        #expect(number.providerCode == nil)
        let twice = OAuth2Provider.classify(.init(status: .badRequest), body: Array(#"{"error":"invalid_grant","error":"x"}"#.utf8))
        #expect(twice.providerCode == "invalid_grant")
        let refused = OAuth2Provider.classifyRefusedRefresh(.init(status: .badRequest), body: Array(#"{"error":null}"#.utf8))
        #expect(sameCase(refused, as: AuthError.authentication("")), "a JSON body naming no error refuses the refresh token: \(refused)")
    }
}
