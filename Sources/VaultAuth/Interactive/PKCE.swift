// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto

/// The random values of one authorization request: the PKCE pair (RFC 7636, S256 only),
/// `state` (RFC 6749 §10.12) and the OpenID Connect `nonce`. Each is 32 bytes from the
/// system's random source, base64url-encoded (43 characters).
public struct AuthorizationSecrets: Sendable {
    /// Sent only in the code exchange, never in the browser.
    public let codeVerifier: String
    /// `BASE64URL(SHA256(codeVerifier))`, sent in the authorization request.
    public let codeChallenge: String
    /// Binds the redirect to this request.
    public let state: String
    /// Binds the ID token to this request.
    public let nonce: String

    /// Fresh values.
    public init() {
        codeVerifier = Self.random()
        codeChallenge = Self.challenge(for: codeVerifier)
        state = Self.random()
        nonce = Self.random()
    }

    /// The S256 challenge of `verifier` (RFC 7636 §4.2).
    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(SHA256.hash(data: Array(verifier.utf8)))
    }

    /// 32 bytes from the system's random source, base64url-encoded (43 characters).
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
