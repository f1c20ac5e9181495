// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAuth
import VaultStore
import VaultStoreCLI

/// An account the store holds no tokens of: a mistyped name says "no account X on S" with
/// the nearest accounts logged in there, and exits 1 (not found), as `vault load` of a
/// missing item does; an account that kept its sign-in settings but lost its tokens (the
/// session ended) is told to log in again, exit 3.
enum AccountNotFound {
    /// `error`, when it is ``AuthError/notLoggedIn(server:account:nearby:)``, with the
    /// accounts logged in on its server (nearest first), or, when the account still has its
    /// settings, as the authentication failure "not logged in …; run vault login"; any other
    /// error unchanged.
    static func explained(_ error: AuthError, items: AccountItems) async -> AuthError {
        guard case .notLoggedIn(let server, let account, _) = error else { return error }
        if (try? await items.loadSettings()) != nil {
            return .authentication("not logged in to \(server) as \(account)", remedy: .logIn(server: server, account: account))
        }
        let here = ((try? AuthOptions.loggedInAccounts(in: items.store)) ?? []).filter { $0.server == server }.map(\.account)
        var nearby = here
        if let nearest = Suggestion.nearest(to: account, in: here) {
            nearby = [nearest] + here.filter { $0 != nearest }
        }
        return .notLoggedIn(server: server, account: account, nearby: nearby)
    }

    /// The line: `no account "X" on S`, then "did you mean" the nearest account, the
    /// accounts logged in there (at most three), or the command that logs it in.
    static func message(server: String, account: String, nearby: [String]) -> String {
        let base = "no account \"\(account)\" on \(server)"
        if let first = nearby.first, Suggestion.nearest(to: account, in: [first]) != nil {
            return "\(base); did you mean \"\(first)\"?"
        }
        if !nearby.isEmpty {
            let names = nearby.prefix(3).map { "\"\($0)\"" }.joined(separator: ", ")
            return "\(base) (logged in there: \(names)\(nearby.count > 3 ? ", …" : ""))"
        }
        let login = ShellWord.loginCommand(server: server, account: account).map { "; \($0) logs it in" } ?? ""
        return "\(base)\(login)"
    }
}
