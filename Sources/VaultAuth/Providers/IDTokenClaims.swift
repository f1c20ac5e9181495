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
    /// (`iss`, `sub`, `aud`, `exp`, `iat`) is missing, has the wrong type, or is a time past
    /// year 9999 either way. Of a name given twice, the first counts, as jwt-kit reads it.
    public init?(payload: [UInt8]) {
        guard let claims = OAuthJSON.decode(ClaimsPayload.self, payload), abs(claims.exp) <= Self.latestTime, abs(claims.iat) <= Self.latestTime
        else { return nil }
        self.issuer = claims.iss
        self.subject = claims.sub
        self.audiences = claims.aud.names
        self.authorizedParty = claims.azp?.value
        self.expiresAt = Date(timeIntervalSince1970: claims.exp)
        self.issuedAt = Date(timeIntervalSince1970: claims.iat)
        self.nonce = claims.nonce?.value
        self.email = claims.email?.value
        self.name = claims.name?.value
        self.emailVerified = claims.emailVerified?.value
        self.isPrivateEmail = claims.isPrivateEmail?.value
        self.json = payload
    }

    /// The largest `exp` or `iat` read (and the most negative, negated): the end of year
    /// 9999 in seconds. A later time (1e300) is no date a report can show.
    static let latestTime: Double = 253_402_300_799

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

/// The claims ``IDTokenClaims`` reads: the five required ones with their types, the others
/// nil when absent or of another type.
private struct ClaimsPayload: Decodable {
    let iss: String
    let sub: String
    let aud: Audience
    let exp: Double
    let iat: Double
    let azp: Loose<String>?
    let nonce: Loose<String>?
    let email: Loose<String>?
    let name: Loose<String>?
    let emailVerified: EmailFlag?
    let isPrivateEmail: EmailFlag?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, azp, nonce, email, name
        case emailVerified = "email_verified", isPrivateEmail = "is_private_email"
    }

    /// `aud`: one string, or a non-empty array of strings (OpenID Connect Core §2).
    struct Audience: Decodable {
        let names: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let single = try? container.decode(String.self) {
                names = [single]
                return
            }
            names = try container.decode([String].self)
            guard !names.isEmpty else { throw DecodingError.dataCorruptedError(in: container, debugDescription: "an empty aud") }
        }
    }

    /// An e-mail claim that arrives as a JSON boolean or as the string "true" or "false"
    /// (Sign in with Apple sends both); anything else reads as absent.
    struct EmailFlag: Decodable {
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
