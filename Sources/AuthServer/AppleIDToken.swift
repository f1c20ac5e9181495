// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import JWTKit

/// A boolean claim as Sign in with Apple sends it: a JSON boolean, or the string `"true"` or
/// `"false"`.
struct AppleBooleanClaim: Codable, Sendable, Equatable {
    /// The value.
    var value: Bool
    /// Whether it is written as a string.
    var asString: Bool

    /// A claim written as `asString` says.
    init(_ value: Bool, asString: Bool) {
        self.value = value
        self.asString = asString
    }

    /// Reads either form; any other value is an error.
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let boolean = try? container.decode(Bool.self) {
            self.init(boolean, asString: false)
        } else {
            switch try container.decode(String.self) {
            case "true": self.init(true, asString: true)
            case "false": self.init(false, asString: true)
            default: throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a boolean")
            }
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if asString {
            try container.encode(value ? "true" : "false")
        } else {
            try container.encode(value)
        }
    }
}

/// The claims of a Sign in with Apple ID token (RS256): `iss` (the server's Apple base URL),
/// `aud` (the client id), `sub`, `iat`, `exp`, `nonce` and `nonce_supported`, and the e-mail
/// claims when the user shared an address.
struct AppleIDTokenClaims: JWTPayload, Equatable {
    enum CodingKeys: String, CodingKey {
        case issuer = "iss"
        case audience = "aud"
        case subject = "sub"
        case issuedAt = "iat"
        case expiration = "exp"
        case nonce
        case nonceSupported = "nonce_supported"
        case email
        case emailVerified = "email_verified"
        case isPrivateEmail = "is_private_email"
    }

    /// How long an Apple ID token is valid, in seconds (Apple: ten minutes).
    static let lifetime: Double = 600

    /// `BASE_URL/apple` (or the issuer override + `/apple`).
    var issuer: IssuerClaim
    /// The client id.
    var audience: AudienceClaim
    /// The user's Apple id.
    var subject: SubjectClaim
    /// Issue time.
    var issuedAt: IssuedAtClaim
    /// Expiry, ``lifetime`` after issue.
    var expiration: ExpirationClaim
    /// The authorization request's `nonce`; never on refresh.
    var nonce: String?
    /// Always `true`, as Apple sends it.
    var nonceSupported = true
    /// The user's e-mail address, if shared.
    var email: String?
    /// `email_verified`, a boolean or a string.
    var emailVerified: AppleBooleanClaim?
    /// `is_private_email`, a boolean or a string.
    var isPrivateEmail: AppleBooleanClaim?

    /// Clients check the claims; the server only signs.
    func verify(using algorithm: some JWTAlgorithm) throws {}
}
