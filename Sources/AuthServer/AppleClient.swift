// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import JWTKit

/// A Sign in with Apple client (a Services ID) registered with the reference server's
/// `/apple/...` endpoints: the developer's team, and the key whose private half signs the
/// client's `client_secret` JWTs (ES256), as Apple knows them.
public struct AppleClient: Sendable, Hashable {
    /// The client id (the Services ID, or the app's bundle id): the client secret's `sub`.
    public var clientID: String
    /// The Apple developer team id: the client secret's `iss`.
    public var teamID: String
    /// The id of the signing key: the client secret's `kid` header.
    public var keyID: String
    /// The P-256 public key, PEM (`-----BEGIN PUBLIC KEY-----`), that verifies client secrets.
    public var publicKeyPEM: String

    /// Creates a client from its four parts.
    public init(clientID: String, teamID: String, keyID: String, publicKeyPEM: String) {
        self.clientID = clientID
        self.teamID = teamID
        self.keyID = keyID
        self.publicKeyPEM = publicKeyPEM
    }

    /// Throws ``AuthServerConfigurationError`` for an empty part or a key that is not a P-256
    /// public key in PEM.
    func validate() throws {
        guard !clientID.isEmpty, !teamID.isEmpty, !keyID.isEmpty else {
            throw AuthServerConfigurationError("apple client id, team id and key id must not be empty")
        }
        guard (try? ES256PublicKey(pem: publicKeyPEM)) != nil else {
            throw AuthServerConfigurationError("apple client \(clientID): the public key is not a P-256 public key in PEM")
        }
    }
}
