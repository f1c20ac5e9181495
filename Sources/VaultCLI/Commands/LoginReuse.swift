// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultAuth
import VaultStore

/// `vault login SERVER ACCOUNT` signs in again the way the account's last login did: the
/// options that login was given are kept with the account (``KeptLoginOptions``), and every
/// option not given now is taken from them; those given now override them and are kept.
extension LoginCommand {
    /// Fills every option not given from the options `kept` (the account's settings) holds,
    /// unless `--provider` names another provider than theirs (nothing of them applies then).
    /// Returns true when they were reused.
    mutating func adopt(_ kept: LoginSettings?) -> Bool {
        guard let options = kept?.loginOptionsToReuse else { return false }
        if let provider, provider != options.provider { return false }
        provider = options.provider
        issuer = issuer ?? options.issuer
        authorizationURL = authorizationURL ?? options.authorizationURL
        tokenURL = tokenURL ?? options.tokenURL
        deviceURL = deviceURL ?? options.deviceURL
        revocationURL = revocationURL ?? options.revocationURL
        clientID = clientID ?? options.clientID
        clientSecretFile = clientSecretFile ?? options.clientSecretFile
        clientAuth = clientAuth ?? options.clientAuthentication
        if grant == nil && !device {
            if options.grant == .device { device = true } else { grant = options.grant }
        }
        scope = scope ?? options.scope
        // A redirect URI belongs to a browser sign-in (or Apple's): not to a switch to --device.
        if redirectURI == nil && (options.provider == .apple || resolvedGrant == .authorizationCode) {
            redirectURI = options.redirectURI
        }
        apple.teamID = apple.teamID ?? options.teamID
        apple.keyID = apple.keyID ?? options.keyID
        apple.appleURL = apple.appleURL ?? options.appleURL
        return true
    }

    /// The options to keep with the account: these, resolved (the grant), the client
    /// secret's file as an absolute path (never `-`).
    var keptOptions: KeptLoginOptions {
        let provider = self.provider ?? .reference
        var kept = KeptLoginOptions(provider: provider)
        kept.issuer = issuer
        kept.authorizationURL = authorizationURL
        kept.tokenURL = tokenURL
        kept.deviceURL = deviceURL
        kept.revocationURL = revocationURL
        kept.clientID = clientID
        if let file = clientSecretFile, file != PassphraseSource.standardInputName {
            kept.clientSecretFile = file.hasPrefix("/") ? file : FileManager.default.currentDirectoryPath + "/" + file
        }
        kept.clientAuthentication = clientAuth
        kept.grant = provider == .apple ? nil : resolvedGrant
        kept.scope = scope
        kept.redirectURI = redirectURI
        kept.teamID = apple.teamID
        kept.keyID = apple.keyID
        kept.appleURL = apple.appleURL
        return kept
    }
}

extension KeptLoginOptions {
    /// The options as `vault login` takes them, each value quoted for a shell
    /// (``ShellWord``); nil when a value cannot be printed exactly. Defaults are left out:
    /// the reference provider, the grant a provider signs in with unless told.
    var words: String? {
        var words: [String?] = []
        if provider != .reference { words += ["--provider", provider.rawValue] }
        for (flag, value) in [
            ("--issuer", issuer), ("--authorization-url", authorizationURL), ("--token-url", tokenURL), ("--device-url", deviceURL),
            ("--revocation-url", revocationURL), ("--client-id", clientID), ("--client-secret-file", clientSecretFile),
            ("--team-id", teamID), ("--key-id", keyID), ("--apple-url", appleURL),
        ] {
            if let value { words += [flag, ShellWord.quoted(value)] }
        }
        if let clientAuthentication, clientAuthentication != .basic { words += ["--client-auth", clientAuthentication.rawValue] }
        switch grant {
        case .device?: words.append("--device")
        case .password?, .clientCredentials?: if provider == .oauth2 { words += ["--grant", grant?.rawValue] }
        case .authorizationCode?: if provider == .oauth2 && authorizationURL == nil { words += ["--grant", "authorization-code"] }
        case nil: break
        }
        if let scope { words += ["--scope", ShellWord.quoted(scope)] }
        if let redirectURI { words += ["--redirect-uri", ShellWord.quoted(redirectURI)] }
        guard words.allSatisfy({ $0 != nil }) else { return nil }
        return words.compactMap { $0 }.joined(separator: " ")
    }
}
