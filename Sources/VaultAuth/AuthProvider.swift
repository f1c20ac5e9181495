// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import HTTPTypes
import VaultStore

/// How an account logs in and refreshes its tokens: the policy of one kind of auth
/// server (the reference API, an OAuth 2.0 token endpoint). The concurrency (single
/// flight, persistence) is the `TokenSource`'s, the replay the `Requester`'s.
///
/// Errors: a rejected password or a dead refresh token is `.authentication`; a
/// misconfigured client `.configuration`; 5xx, 429 and timeouts are `.server` or
/// `.network` and never mean the credentials are bad.
public protocol AuthProvider: Sendable {
    /// A short name for messages and logs ("reference", "oauth2").
    var name: String { get }

    /// Logs in with a password (or, for a client-credentials grant, the client secret
    /// the provider holds) and returns new tokens.
    func login(account: String, password: Secret?) async throws(AuthError) -> TokenSet

    /// Exchanges `tokens.refreshToken` for new tokens. A response without a new refresh
    /// token keeps the old one.
    func refresh(_ tokens: TokenSet) async throws(AuthError) -> TokenSet

    /// True when `login` needs the account's stored password (false for grants that
    /// authenticate the client only).
    var needsPassword: Bool { get }

    /// False when only a person can obtain new tokens (the browser and device grants): a
    /// dead refresh token is then ``AuthError/interactionRequired(_:)`` at once, with no
    /// silent login attempted.
    var canLogInSilently: Bool { get }

    /// True when `response` (to a request that carried the access token) says the token
    /// was rejected, so one refresh and one replay may help. The default: status 401. A
    /// provider with another signal (a 403 with an `invalid_token` challenge, say) answers
    /// its own; a 401 of a downstream service mistaken for this one costs at most the
    /// ``RefreshWindow``.
    func rejectsToken(_ response: HTTPResponse) -> Bool
}

extension AuthProvider {
    /// Default: true, the provider logs in with the account's password; see ``AuthProvider/needsPassword``.
    public var needsPassword: Bool { true }

    /// Default: true, ``AuthProvider/login(account:password:)`` needs no person; see ``AuthProvider/canLogInSilently``.
    public var canLogInSilently: Bool { true }

    /// Default: only a 401 status rejects the token; see ``AuthProvider/rejectsToken(_:)``.
    public func rejectsToken(_ response: HTTPResponse) -> Bool { response.status == 401 }
}
