// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAuth
import VaultStore
import VaultSync

/// The `vault login` command that signs an account in again the way it first signed in:
/// the provider, issuer or endpoints, client id, grant and redirect URI of its stored
/// settings, each word quoted for a shell (``ShellWord``). "Run vault login" hints print it,
/// so that a person pastes a command that works, and a browser account's hint never leads
/// to a password prompt whose answer goes to the resource server.
enum LoginHint {
    /// The settings of the accounts this command read (at most a few), by server and account.
    private static let known = Locked([String: LoginSettings]())

    /// Remembers `settings` as `server`'s and `account`'s, for a hint about them.
    static func record(_ settings: LoginSettings?, server: String, account: String) {
        guard let settings else { return }
        known.withLock { $0[key(server, account)] = settings }
    }

    private static func key(_ server: String, _ account: String) -> String { server + "\u{0}" + account }

    /// The command for the account; nil when a word cannot be printed exactly.
    static func command(server: String, account: String) -> String? {
        guard let base = ShellWord.loginCommand(server: server, account: account) else { return nil }
        guard let settings = known.withLock({ $0[key(server, account)] }) else { return base }
        var words: [String?] = []
        switch settings.provider {
        case .reference:
            return base
        case .oidc:
            words += ["--provider oidc", "--issuer", settings.issuer.flatMap(ShellWord.quoted)]
        case .oauth2:
            words += ["--provider oauth2"]
            for (flag, value) in [
                ("--token-url", settings.tokenURL), ("--authorization-url", settings.authorizationURL), ("--device-url", settings.deviceURL),
                ("--revocation-url", settings.revocationURL),
            ] {
                if let value { words += [flag, ShellWord.quoted(value)] }
            }
            if settings.grant != .authorizationCode && settings.grant != .device { words += ["--grant", settings.grant.rawValue] }
        case .apple:
            guard let apple = settings.apple else { return nil }
            words += ["--provider apple", "--team-id", ShellWord.quoted(apple.teamID), "--key-id", ShellWord.quoted(apple.keyID)]
        }
        words += ["--client-id", settings.clientID.flatMap(ShellWord.quoted)]
        if settings.grant == .device { words.append("--device") }
        if let scope = settings.scope, settings.provider != .apple,
            settings.provider != .oidc || scope != LoginSettings.openIDScope(LoginCommand.defaultOpenIDScope)
        {
            words += ["--scope", ShellWord.quoted(scope)]
        }
        if let redirect = settings.redirectURI { words += ["--redirect-uri", ShellWord.quoted(redirect)] }
        // The secret's file was not kept (only the secret, in the store): the person names it.
        if settings.clientSecret != nil && settings.provider != .apple { words.append("--client-secret-file FILE") }
        guard words.allSatisfy({ $0 != nil }) else { return nil }
        return ([base] + words.compactMap { $0 }).joined(separator: " ")
    }
}
