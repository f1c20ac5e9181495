// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import Foundation
import VaultAuth
import VaultStore

struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Revoke an account's tokens at the provider, then forget them and the login settings.",
        discussion: """
            When the provider has a revocation endpoint (RFC 7009), vault revokes the refresh \
            token, then the access token. The local tokens are deleted even when the provider \
            cannot be told; vault then says so and exits 5. With --end-session the provider's \
            end-session URL (OpenID Connect RP-initiated logout) is printed on stdout, and opened \
            like the sign-in URL, to end the browser's session too.
            """)

    @OptionGroup var auth: AuthOptions
    @Flag(help: "Also remove the stored password.")
    var forgetPassword = false
    @Flag(help: "Also end the provider's browser session: print (and open) its end-session URL.")
    var endSession = false
    @Option(help: ArgumentHelp("Where the provider sends the browser after --end-session.", valueName: "url"))
    var postLogoutRedirectURI: String?
    @OptionGroup var store: StoreOptions

    func run() async throws {
        try await reportingAuthErrors { () async throws(AuthError) in
            let report = try await auth.withSession(store) { session throws(AuthError) in
                try await session.logout(forgetPassword: forgetPassword)
            }
            if endSession { try showEndSession(report) }
            if let failure = report.revocationFailure {
                Terminal.note("logged out here, but the provider could not be told to revoke the tokens: \(failure)")
                throw .network("the tokens may stay valid at the provider until they expire")
            }
        }
    }

    /// Prints (and opens) the end-session URL with `id_token_hint`, `client_id` and `post_logout_redirect_uri`.
    private func showEndSession(_ report: AuthSession.LogoutReport) throws(AuthError) {
        guard let endpoint = report.settings?.endSessionURL, var components = URLComponents(string: endpoint) else {
            Terminal.note("the provider has no end-session endpoint; only the local session ended")
            return
        }
        var items = components.queryItems ?? []
        if let hint = report.idToken?.utf8String { items.append(URLQueryItem(name: "id_token_hint", value: hint)) }
        if let client = report.settings?.clientID { items.append(URLQueryItem(name: "client_id", value: client)) }
        if let postLogoutRedirectURI { items.append(URLQueryItem(name: "post_logout_redirect_uri", value: postLogoutRedirectURI)) }
        components.queryItems = items
        guard let url = components.url?.absoluteString else { return }
        Terminal.print(url)
        BrowserLauncher().open(url)
    }
}
