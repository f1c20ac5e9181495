// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Synchronization

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
    private let fault = Mutex(IDTokenFault.none)

    /// The fault now applied to every ID token.
    var current: IDTokenFault {
        get { fault.withLock { $0 } }
        set { fault.withLock { $0 = newValue } }
    }
}
