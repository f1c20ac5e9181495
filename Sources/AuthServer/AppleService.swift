// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import JWTKit

/// Sign in with Apple's rules, independent of HTTP: the code exchange, the refresh (no
/// rotation: an Apple refresh token stays valid until revoked or expired), revocation, and
/// the RS256 ID tokens. Access and refresh tokens are the server's own (``AuthService``), so
/// the access tokens work on `/api`; they are bound to the channel `apple:CLIENT_ID`, so no
/// `/oauth` client can use or revoke them.
final class AppleService: Sendable {
    /// Why an exchange or refresh failed.
    enum Failure: Error, Sendable, Equatable {
        /// The code or refresh token is unknown, used, revoked, expired or another client's.
        case invalidGrant
        /// The server failed.
        case serverError
    }

    /// The registered clients and the check of their secrets.
    let clients: AppleClientDirectory
    /// Minted codes and the users of refresh tokens.
    let grants: AppleGrants
    /// The RS256 key of the ID tokens, served by `GET /apple/auth/keys`.
    let signing: SigningKeys
    private let service: AuthService

    init(service: AuthService, clients: AppleClientDirectory, grants: AppleGrants, signing: SigningKeys) {
        self.service = service
        self.clients = clients
        self.grants = grants
        self.signing = signing
    }

    /// The client id the server's tokens carry for the Apple client `clientID`.
    static func channel(_ clientID: String) -> String {
        "apple:" + clientID
    }

    /// The issuer of the ID tokens: the server's issuer (its base URL or the override) + `/apple`.
    var issuer: String {
        service.identity.issuer + "/apple"
    }

    /// The live counters.
    var stats: StatsRecorder {
        service.stats
    }

    /// Exchanges a code of `clientID` for access, refresh and ID tokens; the code is used up
    /// whatever the outcome. `redirectURI` must be the code's when it has one.
    /// Counts `codeExchanges` and `idTokens`.
    func exchange(code value: String, clientID: String, redirectURI: String?) async -> Result<IssuedTokens, Failure> {
        guard let code = grants.consume(value), code.expiresAtMillis > WallClock.millis(), code.clientID == clientID,
            code.redirectURI == nil || code.redirectURI == redirectURI,
            let user = service.users.user(id: code.userID)
        else { return .failure(.invalidGrant) }
        let issued = await service.issueAuthorized(user: user, clientID: Self.channel(clientID), scope: nil, nonce: nil)
        guard case .success(var tokens) = issued, let refresh = tokens.refresh else { return .failure(.serverError) }
        grants.remember(code.profile, refreshTokenID: refresh.id, expiresAtMillis: refresh.expiresAtMillis)
        do {
            tokens.idToken = try await idToken(for: code.profile, clientID: clientID, nonce: code.nonce)
        } catch {
            return .failure(.serverError)
        }
        stats.increment(\.codeExchanges)
        return .success(tokens)
    }

    /// A new access token and ID token for a live refresh token of `clientID`, which stays
    /// valid (``IssuedTokens/refresh`` is the presented one). Counts `refreshes` or
    /// `failedRefreshes`, and `idTokens`.
    func refresh(token: String, clientID: String) async -> Result<IssuedTokens, Failure> {
        switch await service.refreshWithoutRotation(token: token, clientID: Self.channel(clientID)) {
        case .success(var tokens):
            guard let refresh = tokens.refresh, let profile = grants.profile(refreshTokenID: refresh.id) else {
                return .failure(.serverError)
            }
            do {
                tokens.idToken = try await idToken(for: profile, clientID: clientID, nonce: nil)
            } catch {
                return .failure(.serverError)
            }
            return .success(tokens)
        case .failure(.internalError):
            return .failure(.serverError)
        case .failure:
            return .failure(.invalidGrant)
        }
    }

    /// Revokes a refresh or access token of `clientID`; another client's or an unknown token
    /// is left alone (RFC 7009 §2.2: the answer is the same). Counts `revocations`.
    func revoke(token: String, clientID: String) async {
        _ = await service.revoke(token: token, clientID: Self.channel(clientID))
        stats.increment(\.revocations)
    }

    /// An ID token about `profile` for `clientID`, with the ID-token fault in force.
    private func idToken(for profile: AppleProfile, clientID: String, nonce: String?) async throws -> String {
        let fault = service.idTokenFault.current
        let now = Double(WallClock.millis() / 1000)
        let times = fault.times(now: now, expiry: now + AppleIDTokenClaims.lifetime)
        let claims = AppleIDTokenClaims(
            issuer: IssuerClaim(value: fault.issuer(issuer)),
            audience: AudienceClaim(value: fault.audience(clientID)),
            subject: SubjectClaim(value: profile.sub),
            issuedAt: IssuedAtClaim(value: times.issuedAt),
            expiration: ExpirationClaim(value: times.expiration),
            nonce: fault.nonce(nonce),
            email: profile.email,
            emailVerified: profile.emailVerified.map { AppleBooleanClaim($0, asString: profile.claimsAsStrings) },
            isPrivateEmail: profile.isPrivateEmail.map { AppleBooleanClaim($0, asString: profile.claimsAsStrings) })
        let token = try await fault.sign(claims, with: signing)
        stats.increment(\.idTokens)
        return token
    }
}
