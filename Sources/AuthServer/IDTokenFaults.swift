// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import JWTKit
import VaultSync

/// A deliberate defect in the ID tokens the server issues, for clients' verification tests
/// (`/api/test/id_token_fault`, ``ReferenceAuthServer/setIDTokenFault(_:)``). It stays
/// until set back to ``none``.
public enum IDTokenFault: String, Sendable, Codable, CaseIterable {
    /// Correct ID tokens.
    case none
    /// `aud` names another client.
    case wrongAudience = "wrong_audience"
    /// `iss` names another issuer.
    case wrongIssuer = "wrong_issuer"
    /// `exp` ten minutes in the past.
    case expired
    /// `iat` an hour in the future.
    case issuedInFuture = "issued_in_future"
    /// `nonce` is not the one of the authorization request.
    case wrongNonce = "wrong_nonce"
    /// A valid token with its signature's last bytes changed.
    case badSignature = "bad_signature"
    /// Signed by a key (and `kid`) the JWKS never serves.
    case unpublishedKey = "unpublished_key"
}

/// The fault in force; shared by the routes and the service.
final class IDTokenFaultSetting: Sendable {
    private let fault = Locked(IDTokenFault.none)

    /// The fault now applied to every ID token.
    var current: IDTokenFault {
        get { fault.withLock { $0 } }
        set { fault.withLock { $0 = newValue } }
    }
}

extension IDTokenFault {
    /// The `iss` to put in a token whose issuer is `issuer`.
    func issuer(_ issuer: String) -> String {
        self == .wrongIssuer ? "https://issuer.invalid" : issuer
    }

    /// The `aud` to put in a token for `clientID`.
    func audience(_ clientID: String) -> String {
        self == .wrongAudience ? "another-client" : clientID
    }

    /// The `nonce` to put in a token whose request had `nonce`.
    func nonce(_ nonce: String?) -> String? {
        self == .wrongNonce ? "not-the-nonce" : nonce
    }

    /// `iat` and `exp` of a token issued at `now` to expire at `expiry` (both Unix seconds).
    func times(now: Double, expiry: Double) -> (issuedAt: Date, expiration: Date) {
        let issuedAt = self == .expired ? now - 1200 : self == .issuedInFuture ? now + 3600 : now
        let expiration = self == .expired ? now - 600 : expiry
        return (Date(timeIntervalSince1970: issuedAt), Date(timeIntervalSince1970: expiration))
    }

    /// `claims` signed by `keys`, or with this fault's signature defect (a damaged signature,
    /// or a fresh key of the same algorithm that no JWKS serves).
    func sign(_ claims: some JWTPayload, with keys: SigningKeys) async throws -> String {
        switch self {
        case .unpublishedKey: try await SigningKeys.make(keys.algorithm).sign(claims)
        case .badSignature: SigningKeys.damaged(try await keys.sign(claims))
        default: try await keys.sign(claims)
        }
    }
}
