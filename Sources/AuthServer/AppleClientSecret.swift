// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import JWTKit

/// The claims of a Sign in with Apple `client_secret`, all optional so that a missing one is
/// a refusal like any other.
struct AppleClientSecretClaims: JWTPayload {
    /// The team id.
    var iss: String?
    /// The client id.
    var sub: String?
    /// `https://appleid.apple.com`.
    var aud: AudienceClaim?
    /// Expiry: in the future, at most six months away.
    var exp: ExpirationClaim?
    /// Issue time (required).
    var iat: IssuedAtClaim?

    /// Checked by ``AppleClientDirectory/authenticate(clientID:secret:now:)``.
    func verify(using algorithm: some JWTAlgorithm) throws {}
}

/// The registered Sign in with Apple clients and the check of their client secrets, as Apple
/// documents it ("Creating a client secret"): a JWT signed ES256 by the client's key, header
/// `alg` ES256 and `kid` the key id; claims `iss` the team id, `sub` the client id, `aud`
/// `https://appleid.apple.com`, `iat`, and `exp` in the future but at most 15,777,000 s
/// (six months) from now.
final class AppleClientDirectory: Sendable {
    /// The `aud` every client secret must name, whatever URL the server has.
    static let audience = "https://appleid.apple.com"
    /// The furthest `exp` may lie from now, in seconds.
    static let maximumLifetime: TimeInterval = 15_777_000

    private struct Registered: Sendable {
        let client: AppleClient
        let keys: JWTKeyCollection
    }

    private let clients: [String: Registered]
    /// The client ids in configuration order.
    let ids: [String]

    private init(clients: [String: Registered], ids: [String]) {
        self.clients = clients
        self.ids = ids
    }

    /// The directory of `clients` (validated by the configuration; a key that does not
    /// parse leaves its client out).
    static func make(_ clients: [AppleClient]) async -> AppleClientDirectory {
        var table: [String: Registered] = [:]
        for client in clients where table[client.clientID] == nil {
            guard let key = try? ES256PublicKey(pem: client.publicKeyPEM) else { continue }
            let keys = JWTKeyCollection()
            await keys.add(ecdsa: key, kid: JWKIdentifier(string: client.keyID))
            table[client.clientID] = Registered(client: client, keys: keys)
        }
        return AppleClientDirectory(clients: table, ids: clients.map(\.clientID).filter { table[$0] != nil })
    }

    /// Whether `clientID` is registered.
    func contains(_ clientID: String) -> Bool {
        clients[clientID] != nil
    }

    /// Whether `secret` is a valid client secret of `clientID` at `now`.
    func authenticate(clientID: String, secret: String, now: Date = Date()) async -> Bool {
        guard let registered = clients[clientID], secret.utf8.count <= 8 * 1024,
            let header = try? DefaultJWTParser().parse(Array(secret.utf8), as: AppleClientSecretClaims.self).header,
            header.alg == "ES256", header.kid == registered.client.keyID,
            let claims = try? await registered.keys.verify(secret, as: AppleClientSecretClaims.self),
            claims.iss == registered.client.teamID, claims.sub == clientID, claims.aud?.value == [Self.audience],
            claims.iat != nil, let expiry = claims.exp?.value
        else { return false }
        let remaining = expiry.timeIntervalSince(now)
        return remaining > 0 && remaining <= Self.maximumLifetime
    }
}
