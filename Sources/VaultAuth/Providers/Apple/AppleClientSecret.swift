// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import JWTKit
import VaultStore
import VaultSync

/// The client secret Sign in with Apple wants at its token and revocation endpoints: a
/// JWT signed ES256 with the developer's private key (header `kid` = key id; claims `iss` =
/// team id, `iat`, `exp`, `aud` = `https://appleid.apple.com`, `sub` = client id).
///
/// Made on first use and reused until ``renewBefore`` seconds before its `exp`. The private
/// key is only ever held in memory here; nothing is written.
public final class AppleClientSecret: Sendable {
    /// The client id (Services ID or bundle id): the secret's `sub`.
    public let clientID: String
    /// The team id (`iss`) and key id (`kid`).
    public let teamID: String, keyID: String
    /// How long a made secret is valid (default one hour; Apple allows up to 15,777,000 s).
    public let lifetime: TimeInterval
    /// A cached secret is made again this many seconds before it expires (default 300).
    public let renewBefore: TimeInterval
    private let privateKey: Secret
    private let clock: any AuthClock
    private let cached = Locked<(secret: Secret, expires: Date)?>(nil)

    /// Apple's upper bound on a client secret's lifetime, in seconds (six months).
    public static let maximumLifetime: TimeInterval = 15_777_000

    /// A maker for `clientID` with `settings`' team, key id and private key.
    public init(
        clientID: String, settings: AppleSettings, clock: any AuthClock = SystemClock(), lifetime: TimeInterval = 3600,
        renewBefore: TimeInterval = 300
    ) {
        self.clientID = clientID
        self.teamID = settings.teamID
        self.keyID = settings.keyID
        self.privateKey = settings.privateKey
        self.clock = clock
        self.lifetime = min(max(lifetime, 60), Self.maximumLifetime)
        self.renewBefore = min(renewBefore, self.lifetime / 2)
    }

    /// A valid client secret: the cached one, or a new one. `.configuration` when the
    /// private key is not a P-256 key in PEM.
    public func current() async throws(AuthError) -> Secret {
        let now = clock.now()
        if let kept = cached.withLock({ $0 }), kept.expires.timeIntervalSince(now) > renewBefore { return kept.secret }
        let made = try await make(issuedAt: now)
        cached.withLock { $0 = (made, now.addingTimeInterval(lifetime)) }
        return made
    }

    /// Signs a new secret issued at `issuedAt`.
    func make(issuedAt: Date) async throws(AuthError) -> Secret {
        guard let pem = privateKey.utf8String, let key = try? ES256PrivateKey(pem: pem) else {
            throw .configuration("the Sign in with Apple private key is not a P-256 key in PEM (an AuthKey_<KEYID>.p8 file)")
        }
        let claims = ClientSecretClaims(
            iss: teamID, iat: Int(issuedAt.timeIntervalSince1970), exp: Int(issuedAt.timeIntervalSince1970 + lifetime),
            aud: AppleSettings.clientSecretAudience, sub: clientID)
        do {
            let keys = await JWTKeyCollection().add(ecdsa: key, kid: JWKIdentifier(string: keyID))
            return Secret(try await keys.sign(claims, kid: JWKIdentifier(string: keyID)))
        } catch {
            throw .configuration("the Sign in with Apple client secret could not be signed")
        }
    }
}

/// The claims of Apple's client secret.
private struct ClientSecretClaims: JWTPayload {
    var iss: String
    var iat: Int
    var exp: Int
    var aud: String
    var sub: String
    func verify(using algorithm: some JWTAlgorithm) throws {}
}
