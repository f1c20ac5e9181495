// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// The claims of an ID token that ``IDTokenVerifier`` accepted (OpenID Connect Core §2).
/// Only identity facts: no token, no secret.
public struct IDTokenClaims: Sendable, Equatable {
    /// `iss`: who issued it.
    public var issuer: String
    /// `sub`: the user's stable identifier at the issuer.
    public var subject: String
    /// `aud`: the clients it is meant for (a string or an array in the token).
    public var audiences: [String]
    /// `azp`: the client it was issued to, when the provider names one.
    public var authorizedParty: String?
    /// `exp`.
    public var expiresAt: Date
    /// `iat`.
    public var issuedAt: Date
    /// `nonce`, echoed from the authorization request.
    public var nonce: String?
    /// `email`, when the provider sends it.
    public var email: String?
    /// `name`, when the provider sends it.
    public var name: String?
    /// `email_verified`, when the provider sends it (a boolean, or the string "true"/"false" as Apple may send it).
    public var emailVerified: Bool?
    /// `is_private_email` (Sign in with Apple): true when `email` is a private relay address.
    public var isPrivateEmail: Bool?
    /// Every claim as the token's payload holds it (a JSON object), for `vault whoami --json`.
    public var json: [UInt8]

    /// The claims of `payload` (the JSON of a token's middle part); nil when a required claim
    /// (`iss`, `sub`, `aud`, `exp`, `iat`) is missing or has the wrong type.
    public init?(payload: [UInt8]) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any],
            let issuer = object["iss"] as? String, let subject = object["sub"] as? String,
            let expiry = (object["exp"] as? NSNumber)?.doubleValue, let issued = (object["iat"] as? NSNumber)?.doubleValue,
            expiry.isFinite, issued.isFinite
        else { return nil }
        switch object["aud"] {
        case let single as String: audiences = [single]
        case let many as [Any]:
            let strings = many.compactMap { $0 as? String }
            guard strings.count == many.count, !strings.isEmpty else { return nil }
            audiences = strings
        default: return nil
        }
        self.issuer = issuer
        self.subject = subject
        self.authorizedParty = object["azp"] as? String
        self.expiresAt = Date(timeIntervalSince1970: expiry)
        self.issuedAt = Date(timeIntervalSince1970: issued)
        self.nonce = object["nonce"] as? String
        self.email = object["email"] as? String
        self.name = object["name"] as? String
        let flags = try? JSONDecoder().decode(EmailFlags.self, from: Data(payload))
        self.emailVerified = flags?.email_verified?.value
        self.isPrivateEmail = flags?.is_private_email?.value
        self.json = payload
    }

    /// The claims of a token that was verified when it was stored (`vault whoami`): its
    /// payload decoded, the signature not checked again.
    public init?(storedToken: String) {
        let parts = storedToken.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]) else { return nil }
        self.init(payload: payload)
    }

    /// Who signed in, for one line: `sub`, with the e-mail address or name when present.
    public var who: String {
        let detail = email.map { isPrivateEmail == true ? "\($0), a private relay address" : $0 } ?? name
        return detail.map { "\($0) (sub \(subject))" } ?? "sub \(subject)"
    }
}

/// The e-mail claims that arrive as JSON booleans or as the strings "true" and "false"
/// (Sign in with Apple sends both); anything else reads as absent.
private struct EmailFlags: Decodable {
    struct Flag: Decodable {
        var value: Bool?
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let bool = try? container.decode(Bool.self) {
                value = bool
            } else if let text = try? container.decode(String.self) {
                value = text == "true" ? true : text == "false" ? false : nil
            }
        }
    }
    // swift-format-ignore: AlwaysUseLowerCamelCase
    var email_verified: Flag?
    // swift-format-ignore: AlwaysUseLowerCamelCase
    var is_private_email: Flag?
}

/// base64url without padding (RFC 7515 §2), as JWTs and PKCE use it.
enum Base64URL {
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: Substring) -> [UInt8]? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }
}
