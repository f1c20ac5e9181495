// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import Foundation
import VaultAuth
import VaultStore

extension LoginSettings.ProviderKind: ExpressibleByArgument {}
extension LoginSettings.Grant: ExpressibleByArgument {}
extension LoginSettings.ClientAuthentication: ExpressibleByArgument {}

struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log in once; vault then keeps the account logged in.",
        discussion: """
            The password is read from standard input (a pipe) or asked for on the terminal. \
            vault stores it (the same item `vault save --server URL --account A` writes), \
            the tokens, and these login settings, so `vault token` and `vault request` need \
            only --server and --account, and can log in again silently when the refresh \
            token dies. With --grant client-credentials no password is needed.

              printf %s "$PW" | vault login --server https://auth.example.com --account alice
              vault login --server https://api.example.com --account svc --provider oauth2 \\
                  --token-url https://auth.example.com/oauth/token --client-id svc \\
                  --client-secret-file /run/secrets/client --grant client-credentials
            """)

    @OptionGroup var auth: AuthOptions
    @Option(help: "reference (the reference auth API) or oauth2 (an RFC 6749 token endpoint).")
    var provider: LoginSettings.ProviderKind = .reference
    @Option(help: ArgumentHelp("OAuth 2.0 token endpoint.", valueName: "url"))
    var tokenURL: String?
    @Option(help: "OAuth 2.0 client id.")
    var clientID: String?
    @Option(help: ArgumentHelp("Read the OAuth 2.0 client secret from this file ('-' for stdin).", valueName: "path"))
    var clientSecretFile: String?
    @Option(help: "How the client authenticates: basic (HTTP Basic) or form.")
    var clientAuth: LoginSettings.ClientAuthentication = .basic
    @Option(help: "password (log in as the account) or client-credentials (a service account).")
    var grant: LoginSettings.Grant = .password
    @Option(help: "OAuth 2.0 scope to request.")
    var scope: String?
    @OptionGroup var store: StoreOptions

    func run() async throws {
        try await reportingAuthErrors { () async throws(AuthError) in
            var clientSecret: Secret?
            if let clientSecretFile {
                do throws(VaultError) {
                    let secret =
                        clientSecretFile == "-"
                        ? try SecretInput.read(prompt: "Client secret: ")
                        : try PassphraseSource.readPassphraseFile(clientSecretFile)
                    guard secret.utf8String != nil else { throw VaultError.invalidInput("the client secret is not UTF-8 text") }
                    clientSecret = secret
                } catch {
                    throw .invalidRequest("cannot read the client secret: \(error)")
                }
            }
            if provider == .oauth2 && (tokenURL == nil || clientID == nil) {
                throw .invalidRequest("--provider oauth2 needs --token-url and --client-id")
            }
            if let tokenURL, let url = URL(string: tokenURL) { try URLPolicy.check(url) }
            let settings = LoginSettings(
                provider: provider, serverURL: ServerName.normalized(auth.server), tokenURL: tokenURL,
                clientID: clientID, clientSecret: clientSecret, clientAuthentication: clientAuth,
                grant: provider == .oauth2 ? grant : .password, scope: scope)
            var password: Secret?
            if settings.grant == .password {
                if clientSecretFile == "-" { throw .invalidRequest("stdin cannot carry both the client secret and the password") }
                do throws(VaultError) {
                    password = try SecretInput.read(prompt: "Password for \(auth.account) at \(auth.server): ")
                } catch {
                    throw .store(error)
                }
                guard password?.utf8String != nil else { throw .invalidRequest("the password is not UTF-8 text") }
            }
            _ = try await auth.withSession(store) { session throws(AuthError) in
                try await session.login(settings: settings, password: password)
            }
            Terminal.note("logged in to \(ServerName.normalized(auth.server)) as \(auth.account)")
        }
    }
}
