// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAuth
import VaultStore
import VaultStoreCLI

/// An account the store holds no tokens of: a mistyped name says "no account X on S" with
/// the nearest accounts logged in there, and exits 1 (not found), as `vault load` of a
/// missing item does; an account that kept its sign-in settings or its password but has no
/// tokens (the session ended, or it logged out) is told to log in again, exit 3.
enum AccountNotFound {
    /// `error`, when it is ``AuthError/notLoggedIn(server:account:nearby:)``, with the
    /// accounts logged in on its server (nearest first), or, when the account still has its
    /// settings or password, as the authentication failure "not logged in …; run vault login"; any other
    /// error unchanged.
    static func explained(_ error: AuthError, items: AccountItems) async -> AuthError {
        guard case .notLoggedIn(let server, let account, _) = error else { return error }
        // Known all the same: its sign-in settings, or a password (a logout keeps it).
        let settings = try? await items.loadSettings()
        let password = try? await items.loadPassword()
        if settings != nil || password != nil {
            return .authentication("not logged in to \(server) as \(account)", remedy: .logIn(server: server, account: account))
        }
        let here = ((try? AuthOptions.loggedInAccounts(in: items.store)) ?? []).filter { $0.server == server }.map(\.account)
        var nearby = here
        if let nearest = Suggestion.nearest(to: account, in: here) {
            nearby = [nearest] + here.filter { $0 != nearest }
        }
        return .notLoggedIn(server: server, account: account, nearby: nearby)
    }

    /// The line: `no account "X" on S`, then "did you mean" the nearest account, or the
    /// accounts logged in there (at most three), or that none is. No login command: for an
    /// account vault knows nothing of, a bare `vault login` would ask for a password and send
    /// it to S, which may be a provider that signs in through the browser.
    static func message(server: String, account: String, nearby: [String]) -> String {
        let base = "no account \"\(account)\" on \(server)"
        if let first = nearby.first, Suggestion.nearest(to: account, in: [first]) != nil {
            return "\(base); did you mean \"\(first)\"?"
        }
        if !nearby.isEmpty {
            let names = nearby.prefix(3).map { "\"\($0)\"" }.joined(separator: ", ")
            return "\(base) (logged in there: \(names)\(nearby.count > 3 ? ", …" : ""))"
        }
        return "\(base) (no account is logged in there)"
    }
}
