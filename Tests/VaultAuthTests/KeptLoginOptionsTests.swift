// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultTestSupport

@testable import VaultAuth

/// The options a login keeps with the account (issue 38 §2): what settings of an older vault
/// imply, and settings whose kept options cannot be read.
@Suite("KeptLoginOptions: derived from older settings, damaged ones", .offThePool)
struct KeptLoginOptionsTests {
    @Test("an OIDC account of an older vault: its issuer, client and redirect URI, not the endpoints discovery found")
    func derivedFromOIDC() {
        var settings = LoginSettings(
            provider: .oidc, serverURL: "https://api.example.com", tokenURL: "https://id.example.com/token", clientID: "cli",
            clientSecret: Secret("s3cret"), grant: .authorizationCode, scope: "openid email")
        settings.issuer = "https://id.example.com"
        settings.revocationURL = "https://id.example.com/revoke"
        settings.redirectURI = "http://127.0.0.1:8400/callback"
        let options = settings.loginOptionsToReuse
        #expect(options.provider == .oidc && options.issuer == "https://id.example.com" && options.clientID == "cli")
        #expect(options.tokenURL == nil && options.revocationURL == nil, "discovered again, not kept")
        #expect(options.grant == .authorizationCode && options.scope == "openid email")
        #expect(options.redirectURI == "http://127.0.0.1:8400/callback" && options.clientSecretFile == nil)
    }

    @Test("an OAuth 2.0 account keeps its endpoints; a reference account nothing but the provider")
    func derivedFromOAuth2AndReference() {
        var settings = LoginSettings(
            provider: .oauth2, serverURL: "https://api.example.com", tokenURL: "https://id.example.com/token", clientID: "svc",
            grant: .clientCredentials)
        settings.deviceURL = "https://id.example.com/device"
        let options = settings.loginOptionsToReuse
        #expect(options.tokenURL == "https://id.example.com/token" && options.deviceURL == "https://id.example.com/device")
        #expect(options.grant == .clientCredentials && options.clientID == "svc")
        let reference = LoginSettings(serverURL: "https://api.example.com").loginOptionsToReuse
        #expect(reference == KeptLoginOptions(provider: .reference))
    }

    @Test("kept options that cannot be read are forgotten; the settings, client secret included, are not")
    func damagedOptionsKeepTheSettings() throws {
        var settings = LoginSettings(
            provider: .oauth2, serverURL: "https://api.example.com", tokenURL: "https://id.example.com/token", clientID: "svc",
            clientSecret: Secret("s3cret"), grant: .clientCredentials)
        settings.loginOptions = KeptLoginOptions(provider: .oauth2)
        var object = try #require(try JSONSerialization.jsonObject(with: Data(settings.encoded())) as? [String: Any])
        for damage: Any in [["provider": "martian"], "not an object", ["provider": 7], ["clientID": "x"]] {
            object["loginOptions"] = damage
            let bytes = Array(try JSONSerialization.data(withJSONObject: object))
            let read = try #require(LoginSettings.decode(bytes), "\(damage)")
            #expect(read.loginOptions == nil && read.clientSecret == Secret("s3cret") && read.tokenURL == settings.tokenURL)
            #expect(read.loginOptionsToReuse.tokenURL == "https://id.example.com/token", "derived instead")
        }
    }
}
