// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultSync

/// What a test wants in a Sign in with Apple authorization code: the body of
/// `POST /api/test/apple_code` and the argument of ``ReferenceAuthServer/mintAppleCode(_:)``.
///
/// JSON: `{"client_id"?, "sub", "email"?, "is_private_email"?, "email_verified"?, "nonce"?,
/// "claims_as_strings"?, "expires_in"?, "redirect_uri"?}`.
public struct AppleCodeRequest: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case sub
        case email
        case isPrivateEmail = "is_private_email"
        case emailVerified = "email_verified"
        case nonce
        case claimsAsStrings = "claims_as_strings"
        case expiresIn = "expires_in"
        case redirectURI = "redirect_uri"
    }

    /// The client the code is for; `nil` names the only registered Apple client.
    public var clientID: String?
    /// The user's stable id at Apple (the ID token's `sub`), not empty.
    public var sub: String
    /// The user's e-mail address (`email`); `nil` leaves it out of the ID token.
    public var email: String?
    /// `is_private_email` (a private relay address); default `false` when there is an e-mail.
    public var isPrivateEmail: Bool?
    /// `email_verified`; default `true` when there is an e-mail.
    public var emailVerified: Bool?
    /// The `nonce` of the authorization request; the ID token of the exchange carries it.
    public var nonce: String?
    /// When `true`, `email_verified` and `is_private_email` are the strings `"true"`/`"false"`
    /// instead of JSON booleans (Apple sends both forms).
    public var claimsAsStrings: Bool?
    /// Seconds until the code expires (default 300, Apple's five minutes; 0 for an expired code).
    public var expiresIn: Double?
    /// The `redirect_uri` of the authorization request; when set, the exchange must send it.
    public var redirectURI: String?

    /// Creates a request; everything but `sub` is optional.
    public init(
        sub: String, clientID: String? = nil, email: String? = nil, isPrivateEmail: Bool? = nil, emailVerified: Bool? = nil,
        nonce: String? = nil, claimsAsStrings: Bool? = nil, expiresIn: Double? = nil, redirectURI: String? = nil
    ) {
        self.sub = sub
        self.clientID = clientID
        self.email = email
        self.isPrivateEmail = isPrivateEmail
        self.emailVerified = emailVerified
        self.nonce = nonce
        self.claimsAsStrings = claimsAsStrings
        self.expiresIn = expiresIn
        self.redirectURI = redirectURI
    }
}

/// Who an Apple ID token speaks of, kept for the refreshes of a code's tokens.
struct AppleProfile: Sendable, Equatable {
    /// `sub`.
    let sub: String
    /// `email`, if any.
    let email: String?
    /// `email_verified`, if sent.
    let emailVerified: Bool?
    /// `is_private_email`, if sent.
    let isPrivateEmail: Bool?
    /// Whether the two booleans are sent as strings.
    let claimsAsStrings: Bool
}

/// A minted Sign in with Apple authorization code and what it is bound to.
struct AppleCode: Sendable {
    /// The Apple client it is for.
    let clientID: String
    /// The user directory's id of the Apple user (login `apple:SUB`).
    let userID: Int64
    /// The ID token's user.
    let profile: AppleProfile
    /// The authorization request's `nonce`.
    let nonce: String?
    /// The authorization request's `redirect_uri`, if it had one.
    let redirectURI: String?
    /// Expiry, Unix milliseconds.
    let expiresAtMillis: Int64
}

/// Why a code cannot be minted.
enum AppleCodeRefusal: Error, Sendable, Equatable {
    /// No Apple client is registered (404).
    case noClient
    /// `client_id` names no registered Apple client (404).
    case unknownClient
    /// Several Apple clients are registered and none was named (400).
    case ambiguousClient
    /// `sub` is empty or `expires_in` negative or not finite (400).
    case invalid(String)

    /// The HTTP status of the test control's reply.
    var status: Int {
        switch self {
        case .noClient, .unknownClient: 404
        case .ambiguousClient, .invalid: 400
        }
    }

    /// The message of the test control's reply.
    var message: String {
        switch self {
        case .noClient: "no apple client is registered"
        case .unknownClient: "unknown apple client"
        case .ambiguousClient: "client_id is required when several apple clients are registered"
        case .invalid(let message): message
        }
    }
}

/// The server-side state of Sign in with Apple: minted codes (single use), and the user each
/// live refresh token speaks of. Apple users are users of the ``UserDirectory`` with the
/// login `apple:SUB` (and a random password), so their access tokens work on `/api`.
final class AppleGrants: Sendable {
    private struct State {
        var codes: [String: AppleCode] = [:]
        /// Refresh token `jti` -> the profile and the token's expiry (Unix ms).
        var profiles: [String: (profile: AppleProfile, expiresAtMillis: Int64)] = [:]
    }

    /// Apple's code lifetime, in seconds.
    static let defaultCodeLifetime: Double = 300

    private let state = Locked(State())

    /// Mints a code as Apple's authorization endpoint would after the user signed in;
    /// `clientIDs` are the registered Apple clients.
    func mint(_ request: AppleCodeRequest, clientIDs: [String], users: UserDirectory) -> Result<String, AppleCodeRefusal> {
        let clientID: String
        switch (request.clientID, clientIDs.count) {
        case (_, 0): return .failure(.noClient)
        case (let named?, _):
            guard clientIDs.contains(named) else { return .failure(.unknownClient) }
            clientID = named
        case (nil, 1): clientID = clientIDs[0]
        case (nil, _): return .failure(.ambiguousClient)
        }
        guard !request.sub.isEmpty else { return .failure(.invalid("sub must not be empty")) }
        let lifetime = request.expiresIn ?? Self.defaultCodeLifetime
        guard lifetime.isFinite, lifetime >= 0 else { return .failure(.invalid("expires_in must not be negative")) }
        let login = "apple:" + request.sub
        guard
            let user = users.userIdentity(login: login)
                ?? users.register(login: login, password: AuthorizationGrants.randomToken())
                ?? users.userIdentity(login: login)
        else { return .failure(.invalid("the user cannot be registered")) }
        let hasEmail = request.email != nil
        let profile = AppleProfile(
            sub: request.sub, email: request.email, emailVerified: request.emailVerified ?? (hasEmail ? true : nil),
            isPrivateEmail: request.isPrivateEmail ?? (hasEmail ? false : nil), claimsAsStrings: request.claimsAsStrings ?? false)
        let now = WallClock.millis()
        let code = AppleCode(
            clientID: clientID, userID: user.id, profile: profile, nonce: request.nonce, redirectURI: request.redirectURI,
            expiresAtMillis: now + Int64((lifetime * 1000).rounded()))
        let value = AuthorizationGrants.randomToken()
        state.withLock { state in
            state.codes = state.codes.filter { $0.value.expiresAtMillis > now }
            state.codes[value] = code
        }
        return .success(value)
    }

    /// Takes a code out (single use: it is gone whatever the exchange concludes).
    func consume(_ value: String) -> AppleCode? {
        state.withLock { $0.codes.removeValue(forKey: value) }
    }

    /// Records who the refresh token `tokenID` (valid until `expiresAtMillis`) speaks of.
    func remember(_ profile: AppleProfile, refreshTokenID tokenID: String, expiresAtMillis: Int64) {
        let now = WallClock.millis()
        state.withLock { state in
            state.profiles = state.profiles.filter { $0.value.expiresAtMillis > now }
            state.profiles[tokenID] = (profile, expiresAtMillis)
        }
    }

    /// Who the refresh token `tokenID` speaks of.
    func profile(refreshTokenID tokenID: String) -> AppleProfile? {
        state.withLock { $0.profiles[tokenID]?.profile }
    }
}
