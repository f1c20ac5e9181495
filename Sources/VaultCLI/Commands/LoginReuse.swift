// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultAuth
import VaultStore

/// `vault login SERVER ACCOUNT` signs in again the way the account's last login did: the
/// options that login was given are kept with the account (``KeptLoginOptions``), and every
/// option not given now is taken from them; those given now override them and are kept.
extension LoginCommand {
    /// What ``adopt(_:)`` took from the account's last login.
    struct Reuse {
        /// The kept client secret (the stored value, or the kept file) may be sent: every
        /// endpoint given now has an origin the kept settings already trusted with it, and
        /// the client id is the same.
        var secretStays: Bool
    }

    /// Fills every option not given from the options `kept` (the account's settings) holds,
    /// unless `--provider` names another provider than theirs (nothing of them applies then).
    /// Returns nil when nothing was reused.
    mutating func adopt(_ kept: LoginSettings?) -> Reuse? {
        guard let kept else { return nil }
        let options = kept.loginOptionsToReuse
        if let provider, provider != options.provider { return nil }
        // A secret goes only where it went before (attack review 55: a new --token-url or
        // --issuer was sent the stored client secret).
        let trusted = [kept.tokenURL, kept.deviceURL, kept.revocationURL, kept.issuer].compactMap { $0.flatMap(URL.init(string:)) }
        let secretStays =
            [issuer, tokenURL, deviceURL, revocationURL].compactMap { $0 }.allSatisfy { given in
                URL(string: given).map { url in trusted.contains { URLPolicy.sameOrigin(url, $0) } } ?? false
            }
            && (clientID == nil || clientID == kept.clientID)
        // An endpoint given now that changes the grant a provider signs in with unless told.
        let grantFollowsTheOptions = grant == nil && !device && authorizationURL != nil && options.authorizationURL == nil
        provider = options.provider
        issuer = issuer ?? options.issuer
        authorizationURL = authorizationURL ?? options.authorizationURL
        tokenURL = tokenURL ?? options.tokenURL
        deviceURL = deviceURL ?? options.deviceURL
        revocationURL = revocationURL ?? options.revocationURL
        clientID = clientID ?? options.clientID
        if secretStays { clientSecretFile = clientSecretFile ?? options.clientSecretFile }
        clientAuth = clientAuth ?? options.clientAuthentication
        if grant == nil && !device && !grantFollowsTheOptions {
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
        return Reuse(secretStays: secretStays)
    }

    /// The options to keep with the account: these, resolved (the grant), and the client
    /// secret's file (``keptSecretFile(_:)``).
    var keptOptions: KeptLoginOptions {
        let provider = self.provider ?? .reference
        var kept = KeptLoginOptions(provider: provider)
        kept.issuer = issuer
        kept.authorizationURL = authorizationURL
        kept.tokenURL = tokenURL
        kept.deviceURL = deviceURL
        kept.revocationURL = revocationURL
        kept.clientID = clientID
        kept.clientSecretFile = clientSecretFile.flatMap(Self.keptSecretFile)
        kept.clientAuthentication = clientAuth
        kept.grant = provider == .apple ? nil : resolvedGrant
        kept.scope = scope
        kept.redirectURI = redirectURI
        kept.teamID = apple.teamID
        kept.keyID = apple.keyID
        kept.appleURL = apple.appleURL
        return kept
    }

    /// The path of a client-secret file to read again at the next login: `path` made
    /// absolute and normalised, when it names a regular file outside /dev and /proc; else,
    /// for a link there (`/dev/stdin` redirected from a file), the file it leads to. Nil for
    /// `-`, a pipe (`<(pass show x)`, `/dev/fd/63`), a terminal or anything else that is not
    /// a file: the next login would read something else there, the vault's passphrase on
    /// standard input among them (attack review 55); the stored secret serves then.
    static func keptSecretFile(_ path: String) -> String? {
        guard path != PassphraseSource.standardInputName else { return nil }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let normalised = URL(fileURLWithPath: absolute).standardizedFileURL.path
        func isRegularFile(_ candidate: String) -> Bool {
            var info = stat()
            return !candidate.hasPrefix("/dev/") && !candidate.hasPrefix("/proc/") && stat(candidate, &info) == 0
                && (info.st_mode & S_IFMT) == S_IFREG
        }
        if isRegularFile(normalised) { return normalised }
        guard let resolved = realpath(normalised, nil) else { return nil }
        defer { free(resolved) }
        let target = String(cString: resolved)
        return target.hasPrefix("/") && isRegularFile(target) ? target : nil
    }
}

extension KeptLoginOptions {
    /// The options as `vault login` takes them, each value quoted for a shell
    /// (``ShellWord``), `<unprintable>` for a value no message can carry exactly. Defaults
    /// are left out: the reference provider, the grant a provider signs in with unless told.
    var words: String {
        var words: [String?] = []
        if provider != .reference { words += ["--provider", provider.rawValue] }
        for (flag, value) in [
            ("--issuer", issuer), ("--authorization-url", authorizationURL), ("--token-url", tokenURL), ("--device-url", deviceURL),
            ("--revocation-url", revocationURL), ("--client-id", clientID), ("--client-secret-file", clientSecretFile),
            ("--team-id", teamID), ("--key-id", keyID), ("--apple-url", appleURL),
        ] {
            if let value { words += [flag, ShellWord.quoted(value) ?? "<unprintable>"] }
        }
        if let clientAuthentication, clientAuthentication != .basic { words += ["--client-auth", clientAuthentication.rawValue] }
        switch grant {
        case .device?: words.append("--device")
        case .password?, .clientCredentials?: if provider == .oauth2 { words += ["--grant", grant?.rawValue] }
        case .authorizationCode?: if provider == .oauth2 && authorizationURL == nil { words += ["--grant", "authorization-code"] }
        case nil: break
        }
        if let scope { words += ["--scope", ShellWord.quoted(scope) ?? "<unprintable>"] }
        if let redirectURI { words += ["--redirect-uri", ShellWord.quoted(redirectURI) ?? "<unprintable>"] }
        return words.compactMap { $0 }.joined(separator: " ")
    }
}
