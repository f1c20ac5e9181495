// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import Foundation
import VaultAuth
import VaultStore
import VaultStoreCLI

struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Revoke an account's tokens at the provider, then forget them and the login settings.",
        usage: "vault logout [<server> <account>] [--forget-password] [<options>]",
        discussion: """
            When the provider has a revocation endpoint (RFC 7009), vault revokes the refresh \
            token, then the access token. The local tokens are deleted even when the provider \
            cannot be told; vault then says so and exits 5. With --end-session the provider's \
            end-session URL (OpenID Connect RP-initiated logout) is printed on stdout, to open in \
            the browser you signed in with (vault does not open it: the ID token in it would be \
            on the browser's command line).

            \(SharedOptionsTopic.pointer)
            """)

    @Argument(
        help: ArgumentHelp(
            "The server's base URL and the account; or --server and --account. Left out: the only account logged in.", valueName: "server account"))
    var names: [String] = []
    @OptionGroup(title: "Sign-in options") var auth: AuthOptions
    @Flag(help: "Also remove the stored password (Sign in with Apple: the developer's key and the pending profile instead).")
    var forgetPassword = false
    @Flag(help: "Also end the provider's browser session: print its end-session URL to open.")
    var endSession = false
    @Option(help: ArgumentHelp("Where the provider sends the browser after --end-session.", valueName: "url"))
    var postLogoutRedirectURI: String?
    @OptionGroup(title: "Store options", visibility: .hidden) var backendChoice: BackendChoice
    @OptionGroup(title: "Store options", visibility: .hidden) var passphraseOption: PassphraseFileOption
    @OptionGroup(title: "Store options", visibility: .hidden) var keyCacheOption: KeyCacheOption
    @OptionGroup(title: "Keyring options", visibility: .hidden) var keyringOptions: KeyringPromptOptions
    @OptionGroup(title: "etcd options", visibility: .hidden) var etcdOptions: EtcdOptions
    var store: StoreOptions { StoreOptions(backendChoice, passphraseOption, keyCacheOption, keyringOptions, etcdOptions) }

    mutating func validate() throws {
        try store.validate()
        try auth.take(names)
    }

    func run() async throws {
        var failedRevocation: String?
        try await reportingAuthErrors { () async throws(AuthError) in
            let (report, server, account) = try await auth.withSession(store) { session throws(AuthError) in
                let report = try await session.logout(forgetPassword: forgetPassword)
                // Nothing of the account was there (no tokens, settings or password): a
                // mistyped name is said, not passed over; with --forget-password too.
                if !report.hadTokens && report.settings == nil && !report.hadPassword {
                    throw .notLoggedIn(server: session.items.server, account: session.items.account)
                }
                return (report, session.items.server, session.items.account)
            }
            // The local tokens are gone: no agent serves them or keeps their token files from now on.
            AgentNotice.accountChanged(server: server, account: account, store.configuration)
            if endSession { try showEndSession(report) }
            if let failure = report.revocationFailure {
                failedRevocation = Self.revocationFailed(failure, server: server, account: account)
            } else {
                Terminal.note(Self.outcome(of: report, server: server, account: account))
            }
        }
        if let failedRevocation {
            Terminal.note(failedRevocation)
            throw ExitCode(ExitStatus.network)
        }
    }

    /// The one line a logout whose revocation failed ends with (exit 5): the provider refused
    /// (a 400, 401 or 403: its status and code), or could not be told; either way the tokens stay valid there.
    static func revocationFailed(_ failure: AuthError, server: String, account: String) -> String {
        let done = "logged out of \(server) as \(account) here"
        if case .server(let status, let message) = failure, [400, 401, 403].contains(status) {
            return "\(done), but \(message); the tokens stay valid there until they expire"
        }
        return "\(done), but the provider could not be told to revoke the tokens (\(failure.commandLineMessage)); "
            + "they may stay valid there until they expire"
    }

    /// The one line a logout that did not fail ends with: whether the provider revoked the
    /// tokens, or was not told (no revocation endpoint), so they stay valid until they expire.
    static func outcome(of report: AuthSession.LogoutReport, server: String, account: String) -> String {
        let done = "logged out of \(server) as \(account)"
        let password = report.passwordKept ? "; the password item stays (--forget-password removes it)" : ""
        guard report.hadTokens else { return "\(done) (no tokens were kept)\(password)" }
        guard report.canRevoke else {
            return "\(done) here only: the provider has no revocation endpoint and was not told, "
                + "so the tokens stay valid at the provider until they expire\(password)"
        }
        return "\(done); the provider revoked the tokens\(password)"
    }

    /// Prints the end-session URL with `id_token_hint`, `client_id` and `post_logout_redirect_uri`
    /// (the endpoint's own query kept as it is). It is not opened: the ID token in it would sit
    /// in the browser's command line, which other users can read in /proc.
    private func showEndSession(_ report: AuthSession.LogoutReport) throws(AuthError) {
        guard let endpoint = report.settings?.endSessionURL, let url = URL(string: endpoint) else {
            Terminal.note("the provider has no end-session endpoint; only the local session ended")
            return
        }
        var parameters: [(String, String)] = []
        if let hint = report.idToken?.utf8String { parameters.append(("id_token_hint", hint)) }
        if let client = report.settings?.clientID { parameters.append(("client_id", client)) }
        if let postLogoutRedirectURI { parameters.append(("post_logout_redirect_uri", postLogoutRedirectURI)) }
        Terminal.print(QueryString.appending(parameters, to: url).absoluteString)
        Terminal.note("open this URL in the browser you signed in with to end the provider's session too")
    }
}
