// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// A field servers write in more than one way: the expected type, or something else.
/// Absent or `null` is nil (as an optional); ``other`` keeps a value of another type
/// apart, so each field decides whether it is an error, a default or nothing.
package enum Loose<Value: Decodable & Sendable>: Decodable, Sendable {
    case value(Value)
    case other

    package init(from decoder: any Decoder) throws {
        if let value = try? decoder.singleValueContainer().decode(Value.self) { self = .value(value) } else { self = .other }
    }

    /// The value when it has the expected type.
    package var value: Value? {
        if case .value(let value) = self { value } else { nil }
    }
}

/// Seconds as OAuth servers write them: a JSON number, or a string of 1 to 12 ASCII
/// digits (some quote `expires_in`, `interval` or `refresh_expires_in`; x/oauth2's
/// `expirationTime` takes both). Whether the number is usable is the field's to say.
package struct OAuthSeconds: Decodable, Sendable {
    package let seconds: Double

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            seconds = number
            return
        }
        let text = try container.decode(String.self)
        guard !text.isEmpty, text.utf8.count <= 12, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Double(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a number of seconds")
        }
        seconds = number
    }
}

/// A token endpoint's success body (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3,
/// Keycloak's `refresh_expires_in`). Only `access_token` must be a string for the body to
/// be one; every other field is checked by the provider, which says what is wrong.
package struct OAuthTokenResponse: Decodable, Sendable {
    package let accessToken: String
    package let tokenType: Loose<String>?
    package let expiresIn: Loose<OAuthSeconds>?
    package let refreshToken: Loose<String>?
    package let idToken: Loose<String>?
    package let refreshExpiresIn: Loose<OAuthSeconds>?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in", refreshToken = "refresh_token"
        case idToken = "id_token", refreshExpiresIn = "refresh_expires_in"
    }
}

/// A device authorization endpoint's success body (RFC 8628 §3.2; Google's
/// `verification_url` for `verification_uri`).
package struct DeviceAuthorizationResponse: Decodable, Sendable {
    package let deviceCode: String
    package let userCode: String
    package let verificationURI: Loose<String>?
    package let verificationURL: Loose<String>?
    package let verificationURIComplete: Loose<String>?
    package let expiresIn: Loose<OAuthSeconds>?
    package let interval: Loose<OAuthSeconds>?

    enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code", userCode = "user_code", verificationURI = "verification_uri"
        case verificationURL = "verification_url", verificationURIComplete = "verification_uri_complete", expiresIn = "expires_in"
        case interval
    }
}

/// An error body (RFC 6749 §5.2; RFC 7009 and RFC 8628 use the same).
package struct OAuthErrorResponse: Decodable, Sendable {
    package let error: Loose<String>?
    package let errorDescription: Loose<String>?

    enum CodingKeys: String, CodingKey {
        case error, errorDescription = "error_description"
    }
}

/// JSON bodies as vault reads them.
package enum OAuthJSON {
    /// `T` from `body`, or nil when `body` is not that JSON.
    package static func decode<T: Decodable>(_ type: T.Type, _ body: [UInt8]) -> T? {
        try? JSONDecoder().decode(type, from: Data(body))
    }
}

extension KeyedDecodingContainer {
    /// `key`'s value as a ``Loose`` field whose presence counts: nil when the member is
    /// absent, `.other` when it is `null` or of another type (a synthesized optional would
    /// read `null` as absent).
    package func looseIfPresent<Value: Decodable & Sendable>(_ type: Value.Type = Value.self, forKey key: Key) -> Loose<Value>? {
        guard contains(key) else { return nil }
        return (try? decode(Loose<Value>.self, forKey: key)) ?? .other
    }
}
