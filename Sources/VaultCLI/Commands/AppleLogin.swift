// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import Foundation
import VaultAuth
import VaultStore
import VaultStoreCLI

/// `vault login --provider apple`'s own options.
struct AppleLoginOptions: ParsableArguments {
    @Option(help: "Sign in with Apple: the developer team id (the client secret's iss).")
    var teamID: String?
    @Option(help: "Sign in with Apple: the key id of the private key (AuthKey_<KEYID>.p8).")
    var keyID: String?
    @Option(help: ArgumentHelp("Sign in with Apple: the private key, PKCS#8 PEM (the .p8 file).", valueName: "path"))
    var privateKeyFile: String?
    @Option(help: "Sign in with Apple: the nonce the app's request carried; the ID token must carry it.")
    var nonce: String?
    @Option(help: ArgumentHelp("Sign in with Apple: the user's name as the app received it (first sign-in only).", valueName: "name"))
    var name: String?
    @Option(help: ArgumentHelp("Sign in with Apple: the user's e-mail address as the app received it (first sign-in only).", valueName: "address"))
    var email: String?
    @Option(help: ArgumentHelp("Sign in with Apple: the base of Apple's endpoints (default https://appleid.apple.com).", valueName: "url"))
    var appleURL: String?

    /// True when any of these options was given.
    var isGiven: Bool {
        [teamID, keyID, privateKeyFile, nonce, name, email, appleURL].contains { $0 != nil }
    }
}

extension LoginCommand {
    /// `vault login --provider apple`: the app's authorization code from stdin, exchanged
    /// with a client secret signed by the developer's key.
    func signInWithApple(_ secureStore: any SecureStore) async throws(AuthError) {
        guard let clientID, !clientID.isEmpty else { throw .invalidRequest("--provider apple needs --client-id") }
        let base = apple.appleURL ?? AppleSettings.defaultBaseURL
        guard let baseURL = URL(string: base), baseURL.host != nil else { throw .invalidRequest("not a URL: \(URLPolicy.redacted(text: base))") }
        try URLPolicy.check(baseURL)
        if let redirect = redirectURI, URL(string: redirect)?.host == nil {
            throw .invalidRequest("not a URL: \(URLPolicy.redacted(text: redirect))")
        }
        if clientSecretFile != nil || tokenURL != nil || issuer != nil || authorizationURL != nil || device {
            throw .invalidRequest("--provider apple takes neither --client-secret-file nor other endpoints, --issuer or --device")
        }
        guard baseURL.query == nil, baseURL.fragment == nil, !base.contains("?"), !base.contains("#") else {
            throw .invalidRequest("--apple-url must be a base URL, without a query or a fragment")
        }
        guard let teamID = apple.teamID, let keyID = apple.keyID else {
            throw .invalidRequest("--provider apple needs --team-id and --key-id")
        }
        // Apple's ids are 10 letters and digits; the key id also names a file.
        for (option, value) in [("--team-id", teamID), ("--key-id", keyID)]
        where value.isEmpty || value.count > 64
            || !value.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0) })
        {
            throw .invalidRequest("\(option) must be letters and digits (Apple's ids are 10 of them)")
        }
        let server = ServerName.normalized(auth.server)
        let profile = PendingProfile(name: apple.name, email: apple.email)
        let codeWait = try auth.validatedTimeout()
        let tokens = try await auth.withSession(opened: secureStore, store) { session throws(AuthError) -> TokenSet in
            let key = try await privateKey(session: session)
            var settings = LoginSettings.apple(
                serverURL: server, clientID: clientID, apple: AppleSettings(teamID: teamID, keyID: keyID, privateKey: key, baseURL: base))
            settings.loginOptions = keptOptions
            // The key is checked before the code is read, so a bad key never wastes a code.
            _ = try await AppleClientSecret(clientID: clientID, settings: settings.apple!).current()
            let code = try readAuthorizationCode(within: codeWait)
            Interruption.handle("the sign-in")
            return try await session.signInWithApple(
                code: code, settings: settings, profile: profile.isEmpty ? nil : profile, nonce: apple.nonce,
                redirectURI: redirectURI, locked: { Interruption.committing() })
        }
        let claims = tokens.idToken?.utf8String.flatMap(IDTokenClaims.init(storedToken:))
        let who = claims.map { " (signed in: \($0.who))" } ?? ""
        Terminal.note("logged in to \(server) as \(auth.account)\(who)")
        tellAgents()
    }

    /// The private key: `--private-key-file`, else `$CREDENTIALS_DIRECTORY/AuthKey_<KEYID>.p8`,
    /// else the one stored at the account's earlier Apple sign-in.
    private func privateKey(session: AuthSession) async throws(AuthError) -> Secret {
        var path = apple.privateKeyFile
        if path == nil, let directory = ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"], let keyID = apple.keyID {
            let candidate = directory + "/AuthKey_\(keyID).p8"
            if access(candidate, R_OK) == 0 { path = candidate }
        }
        if let path {
            do throws(VaultError) {
                let bytes = try PrivateKeyFile.read(path)
                guard let text = String(validating: bytes, as: UTF8.self), !text.isEmpty else {
                    throw VaultError.invalidInput("\(path) is not a PEM text file")
                }
                return Secret(text)
            } catch {
                throw .invalidRequest("cannot read the private key: \(error)")
            }
        }
        if let stored = try? await session.settings(), let kept = stored.apple?.privateKey, stored.provider == .apple {
            return kept
        }
        throw .invalidRequest("--provider apple needs --private-key-file (or $CREDENTIALS_DIRECTORY/AuthKey_<KEYID>.p8)")
    }

    /// The authorization code, from standard input (or the terminal), like a password; a
    /// pipe must end `within` that long (the `--timeout`): a code is a few hundred bytes.
    private func readAuthorizationCode(within: Duration) throws(AuthError) -> Secret {
        let code: Secret
        do throws(VaultError) {
            code = try SecretInput.read(prompt: "Authorization code from the app: ", within: within)
        } catch {
            throw .store(error)
        }
        guard let text = code.utf8String?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
            throw .invalidRequest("no authorization code on standard input")
        }
        return Secret(text)
    }
}
