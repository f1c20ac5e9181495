// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

/// What a store holds of one logged-in account, read without any request (`vault status`):
/// the login settings, the tokens' expiries, whether a password is stored, and a rejection
/// of the stored credentials that ``SilentReauthenticator`` remembers. It holds no token.
public struct AccountStatus: Sendable {
    /// The server as stored (normalised) and the account.
    public var server: String
    public var account: String
    /// The login settings, or nil when they are missing or damaged.
    public var settings: LoginSettings?
    /// When the access token expires; nil when the token item is missing or damaged.
    public var accessTokenExpiry: Date?
    /// True when a refresh token is kept.
    public var hasRefreshToken: Bool
    /// When the refresh token expires, when the server said.
    public var refreshTokenExpiry: Date?
    /// When the tokens were last received (the login or the last refresh).
    public var obtainedAt: Date?
    /// The verified ID token's claims, when the account signed in with OpenID Connect.
    public var identity: IDTokenClaims?
    /// True when the account's password is stored (a silent login can use it).
    public var hasPassword: Bool
    /// When the stored credentials were last rejected by a silent login, if that is remembered.
    public var credentialsRejectedAt: Date?

    /// Reads the status of `items`' account.
    public static func read(_ items: AccountItems) async throws(AuthError) -> AccountStatus {
        let tokens = try await items.loadTokens()
        let settings = try await items.loadSettingsData().flatMap(LoginSettings.decode)
        let hasPassword = try await items.loadPassword() != nil
        return AccountStatus(
            server: items.server, account: items.account, settings: settings, accessTokenExpiry: tokens?.accessTokenExpiry,
            hasRefreshToken: tokens?.refreshToken != nil, refreshTokenExpiry: tokens?.refreshTokenExpiry, obtainedAt: tokens?.obtainedAt,
            identity: tokens?.idToken?.utf8String.flatMap(IDTokenClaims.init(storedToken:)), hasPassword: hasPassword,
            credentialsRejectedAt: settings?.rejection?.rejectedAt)
    }

    /// An account whose items cannot be read (a name the store refuses, such as one with a
    /// control character that another program wrote): listed, and never usable.
    public static func unreadable(server: String, account: String) -> AccountStatus {
        AccountStatus(
            server: server, account: account, settings: nil, accessTokenExpiry: nil, hasRefreshToken: false, refreshTokenExpiry: nil,
            obtainedAt: nil, identity: nil, hasPassword: false, credentialsRejectedAt: nil)
    }

    /// True when the access token has not expired at `now`.
    public func accessTokenIsValid(at now: Date) -> Bool { accessTokenExpiry.map { now < $0 } ?? false }

    /// True when a refresh token is kept and, as far as is known, has not expired at `now`.
    /// A rejection of the stored credentials after the tokens were received means a refresh
    /// failed for good first (only then is a silent login tried): that refresh token is dead.
    public func canRefresh(at now: Date) -> Bool {
        if let rejected = credentialsRejectedAt, let obtainedAt, rejected >= obtainedAt { return false }
        return hasRefreshToken && (refreshTokenExpiry.map { now < $0 } ?? true)
    }

    /// When a rejection of the stored credentials stops holding back a silent login, if it
    /// still does at `now` under `coolDown` seconds.
    public func coolDownEnd(at now: Date, coolDown: TimeInterval) -> Date? {
        guard let rejected = credentialsRejectedAt else { return nil }
        let end = rejected.addingTimeInterval(coolDown)
        return end > now ? end : nil
    }

    /// True when a silent login could get new tokens at `now`: the client-credentials grant,
    /// or the password grant (the reference API's too) with a stored password; in neither
    /// case while a cool-down holds.
    public func canLogInAgain(at now: Date, coolDown: TimeInterval) -> Bool {
        guard let settings, coolDownEnd(at: now, coolDown: coolDown) == nil else { return false }
        switch settings.grant {
        case .clientCredentials: return settings.provider != .apple
        case .password: return hasPassword && settings.provider != .apple
        case .authorizationCode, .device: return false
        }
    }

    /// True when `vault token` can give a token without a person: a valid access token, a
    /// live refresh token, or a silent login.
    public func isUsable(at now: Date, coolDown: TimeInterval) -> Bool {
        guard settings != nil else { return false }
        return accessTokenIsValid(at: now) || canRefresh(at: now) || canLogInAgain(at: now, coolDown: coolDown)
    }
}
