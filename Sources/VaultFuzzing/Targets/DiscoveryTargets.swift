// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultAuth

/// What a provider says about itself and what it gives a device: the discovery document
/// (OpenID Connect Discovery 1.0, RFC 8414) and the device authorization response (RFC 8628
/// §3.2). The rules the code claims are checked again here, apart from its own checks.
enum DiscoveryTargets {
    /// The issuer the documents must name.
    static let issuer = "https://accounts.example.com"

    /// Invariant: a document is refused with `.configuration` or `.server`, or names the
    /// expected issuer (a trailing slash aside), has a token endpoint, and every endpoint it
    /// gives is exactly the document's string, without control characters, and a URL vault
    /// may send credentials to.
    static let discovery = FuzzTarget(
        name: "discovery",
        summary: "a discovery document: refused, or the expected issuer and only https (or loopback http) endpoints"
    ) { bytes throws(InvariantViolation) in
        let metadata: ProviderMetadata
        do throws(AuthError) {
            metadata = try ProviderMetadata.parse(bytes, status: 200, expectedIssuer: issuer)
        } catch {
            switch error {
            case .configuration, .server(200, _): break
            default: throw InvariantViolation("a document was refused with \(error)")
            }
            try require(TerminalSafety.isSafe(error.description), "refusal shows a control character: \(error.description.debugDescription)")
            return
        }
        let object = JSONStringFields.of(bytes)
        try require(metadata.issuer == object?["issuer"], "issuer is not the document's")
        try require(metadata.issuer == issuer || metadata.issuer == issuer + "/", "accepted the issuer \(metadata.issuer.debugDescription)")
        let endpoints: [(String, String?)] = [
            ("token_endpoint", metadata.tokenEndpoint), ("authorization_endpoint", metadata.authorizationEndpoint),
            ("device_authorization_endpoint", metadata.deviceAuthorizationEndpoint),
            ("revocation_endpoint", metadata.revocationEndpoint), ("jwks_uri", metadata.jwksURI),
            ("end_session_endpoint", metadata.endSessionEndpoint),
        ]
        for (name, value) in endpoints {
            try require(value == object?[name], "\(name) is not the document's")
            if let value {
                try require(WebURL.isCredentialSafe(value) && hasNoControl(value), "accepted \(name) \(value.debugDescription)")
            }
        }
    }

    /// Invariant: a response is refused with `.server`, or its device code is a token of
    /// visible ASCII, its user code printable and short, its URIs ones a person may be sent
    /// to (https or loopback http, no user info), its lifetime within bounds and its polling
    /// interval within 1...60 s; each value is the response's own.
    static let deviceAuthorization = FuzzTarget(
        name: "device-authorization",
        summary: "an RFC 8628 device authorization response: refused, or codes, URIs and times within the documented bounds"
    ) { bytes throws(InvariantViolation) in
        let result = try AsyncRunner.run { () async -> Result<DeviceAuthorization, AuthError> in
            do throws(AuthError) {
                let provider = try OAuthResponseTargets.oauthProvider(bytes)
                return .success(try await provider.requestDeviceAuthorization(at: deviceEndpoint))
            } catch {
                return .failure(error)
            }
        }
        let authorization: DeviceAuthorization
        switch result {
        case .failure(let error):
            guard case .server(200, let message) = error else { throw InvariantViolation("refused with \(error)") }
            try require(TerminalSafety.isSafe(message), "refusal shows a control character: \(message.debugDescription)")
            return
        case .success(let accepted): authorization = accepted
        }
        let object = JSONStringFields.of(bytes)
        try require(authorization.deviceCode == object?["device_code"], "device code is not the response's")
        try require(TokenCharacters.isAcceptable(authorization.deviceCode), "accepted an unacceptable device code")
        try require(authorization.userCode == object?["user_code"], "user code is not the response's")
        try require(
            !authorization.userCode.isEmpty && authorization.userCode.count <= 64 && hasNoControl(authorization.userCode),
            "accepted the user code \(authorization.userCode.debugDescription)")
        let uri = object?["verification_uri"] ?? object?["verification_url"]
        try require(authorization.verificationURI == uri, "verification URI is not the response's")
        try require(authorization.verificationURIComplete == object?["verification_uri_complete"], "complete URI is not the response's")
        for shown in [authorization.verificationURI] + (authorization.verificationURIComplete.map { [$0] } ?? []) {
            try require(WebURL.isCredentialSafe(shown) && hasNoControl(shown), "a person would be sent to \(shown.debugDescription)")
        }
        try require(
            authorization.expiresIn > 0 && authorization.expiresIn <= OAuth2Provider.maximumLifetime,
            "expires_in \(authorization.expiresIn) out of bounds")
        try require((1...60).contains(authorization.interval), "interval \(authorization.interval) out of 1...60")
    }

    /// True when `text` has no C0 or C1 control character nor DEL (what the device response's
    /// texts must not have; the terminal shows them escaped anyway, format characters too).
    static func hasNoControl(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    static let deviceEndpoint = URL(string: "https://accounts.example.com/device") ?? URL(fileURLWithPath: "/")
}

/// URL rules re-checked apart from ``URLPolicy``, on the text itself as a browser reads it.
enum WebURL {
    /// True for `https://HOST...`, or `http://` to 127.x.y.z, `[::1]` or `localhost`, with a
    /// non-empty host, no user info (no `@` in the authority) and no space or backslash.
    static func isCredentialSafe(_ text: String) -> Bool {
        let lower = text.lowercased()
        let secure = lower.hasPrefix("https://")
        guard secure || lower.hasPrefix("http://"), !lower.contains(" "), !lower.contains("\\") else { return false }
        let authority = lower.dropFirst(secure ? 8 : 7).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return false }
        if secure { return true }
        let host = authority.hasPrefix("[") ? String(authority.prefix { $0 != "]" }) + "]" : String(authority.prefix { $0 != ":" })
        return host == "localhost" || host == "[::1]" || host.hasPrefix("127.")
    }
}
