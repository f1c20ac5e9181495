// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// What can go wrong when a request is authorised, sent or refreshed. Callers branch on
/// the case; none of them carries a token or a password. What a person can do about it is
/// typed (``remedy``), for the program to word: the messages name no command or flag.
public enum AuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The credentials are no good for good: an interactive login is needed
    /// (dead refresh token and no stored password, a rejected password, `invalid_grant`).
    /// `providerCode` is the provider's own error code when it sent one (RFC 6749 `error`);
    /// `remedy` what a person can do, when known.
    case authentication(String, providerCode: String? = nil, remedy: AuthRemedy? = nil)
    /// The session has ended and only a person can start a new one: the refresh token of an
    /// account that signed in through the browser or the device grant is dead, and there is no
    /// password to log in with. Reported at once, never retried; the remedy is always
    /// ``AuthRemedy/logIn(server:account:)``, with the account's `server` and `account`
    /// when known (``naming(server:account:)``), so that a message can name the exact sign-in.
    case interactionRequired(String, server: String? = nil, account: String? = nil)
    /// The client is misconfigured (`invalid_client`, unknown provider settings).
    /// `providerCode` is the provider's own error code when it sent one (RFC 6749 `error`);
    /// `remedy` what a person can do, when known.
    case configuration(String, providerCode: String? = nil, remedy: AuthRemedy? = nil)
    /// The server answered with an error that is not about authentication.
    case server(status: Int, message: String)
    /// The server could not be reached or did not answer in time; nothing stored changed
    /// and trying again later may work.
    case network(String)
    /// The secure store failed.
    case store(VaultError)
    /// The request itself is unusable (a bad URL, plain http to a remote host); `remedy`
    /// what a person can do, when known.
    case invalidRequest(String, remedy: AuthRemedy? = nil)
    /// Another process held the account's lock (its ``AccountLocking``: a lock file, or a
    /// fleet's lease) past ``Requester/Configuration/lockTimeout``, or the lock lapsed again and again.
    case lockTimeout(String)
    /// Something of this machine that the request needs is taken: the port of the sign-in's
    /// redirect URI is in use by another program. Trying again once it is free may work.
    case unavailable(String)
    /// The store holds no tokens of `account` on `server`: it never logged in, logged out, or
    /// the name is mistyped. `nearby` is for the program to fill (the library leaves it
    /// empty): the accounts logged in on that server, nearest first, for a "did you mean".
    case notLoggedIn(server: String, account: String, nearby: [String] = [])
    /// Rejected tokens caused more refreshes than the ``RefreshWindow`` allows:
    /// the resource keeps answering 401 to new tokens, so refreshing again would not help.
    case excessiveRefresh(String)

    /// One line for a person, starting with the kind of failure (``store(_:)`` shows the store's own
    /// message), without the ``remedy``; never contains a token or a password.
    public var description: String {
        switch self {
        case .authentication(let why, _, _): "authentication failed: \(why)"
        case .interactionRequired(let why, _, _): "the session has ended (\(why))"
        case .configuration(let why, _, _): "configuration error: \(why)"
        case .server(let status, let message): "server error \(status): \(message)"
        case .network(let why): "network error: \(why)"
        case .store(let error): error.description
        case .invalidRequest(let why, _): why
        case .excessiveRefresh(let why): "authentication failed: \(why)"
        case .lockTimeout(let why): why
        case .unavailable(let why): why
        case .notLoggedIn(let server, let account, _): "not logged in to \(server) as \(account)"
        }
    }

    /// What a person can do about the error, when known; the program words it.
    public var remedy: AuthRemedy? {
        switch self {
        case .authentication(_, _, let remedy), .configuration(_, _, let remedy), .invalidRequest(_, let remedy): remedy
        case .interactionRequired(_, let server, let account): .logIn(server: server, account: account)
        case .notLoggedIn(let server, let account, _): .logIn(server: server, account: account)
        default: nil
        }
    }

    /// The provider's own error code (an RFC 6749 `error` such as `invalid_grant`), when
    /// it sent one; callers may branch on it, as on golang/oauth2's `RetrieveError.ErrorCode`.
    public var providerCode: String? {
        switch self {
        case .authentication(_, let code, _), .configuration(_, let code, _): code
        default: nil
        }
    }

    /// True when retrying later may succeed (server trouble, timeouts). A success status
    /// with a body that cannot be understood (a garbled reply, a proxy's page) is server
    /// trouble too, not a verdict on the credentials.
    public var isTransient: Bool {
        switch self {
        case .network: true
        case .server(let status, _): status >= 500 || status == 429 || status == 408 || (200..<300).contains(status)
        default: false
        }
    }
}

extension AuthError {
    /// This error with `server` and `account` in a ``AuthRemedy/logIn(server:account:)``
    /// remedy that does not name the server yet, so that a message can say exactly what to
    /// sign in to; any other error unchanged.
    public func naming(server: String, account: String) -> AuthError {
        switch self {
        case .interactionRequired(let why, nil, _):
            return .interactionRequired(why, server: server, account: account)
        case .authentication(let why, let code, .logIn(nil, _)?):
            return .authentication(why, providerCode: code, remedy: .logIn(server: server, account: account))
        case .configuration(let why, let code, .logIn(nil, _)?):
            return .configuration(why, providerCode: code, remedy: .logIn(server: server, account: account))
        case .invalidRequest(let why, .logIn(nil, _)?):
            return .invalidRequest(why, remedy: .logIn(server: server, account: account))
        default:
            return self
        }
    }

    /// A store's error as an ``AuthError``: a lock that stayed held past its bound is
    /// ``lockTimeout(_:)``, whichever lock it was; anything else is ``store(_:)``.
    public init(_ error: VaultError) {
        if case .lockTimeout(let why) = error {
            self = .lockTimeout(why)
        } else {
            self = .store(error)
        }
    }
}
