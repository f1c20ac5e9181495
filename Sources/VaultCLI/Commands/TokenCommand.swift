// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultAuth
import VaultStore
import VaultStoreCLI

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a valid access token, refreshing it (or logging in again) first if needed.",
        usage: "vault token [<server> <account>] [<options>]",
        discussion: """
            The token goes to standard output only, so it never appears in a process list. \
            To hand it to curl without putting it in curl's arguments (readable in /proc), \
            let curl read the header from standard input:

              vault token https://api.example.com alice \\
                | sed 's/^/Authorization: Bearer /' \\
                | curl -H @- https://api.example.com/api/get_devs

            With -v, stderr says how the token was got: the stored access token was \
            used, it was refreshed, or the account logged in again with the stored \
            password.

            \(SharedOptionsTopic.pointer)
            """)

    @Argument(
        help: ArgumentHelp(
            "The server's base URL and the account; or --server and --account. Left out: the only account logged in.", valueName: "server account"))
    var names: [String] = []
    @OptionGroup(title: "Sign-in options") var auth: AuthOptions
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
        try await reportingAuthErrors { () async throws(AuthError) in
            let verbose = store.verbose
            // Named: the agent is asked before the store is opened, once what would be
            // refused without it has been.
            if auth.isNamed {
                _ = try auth.validatedTimeout()
                try AuthOptions.checkServer(auth.server, account: auth.account)
                if let token = AgentTokens.token(server: auth.server, account: auth.account, store: store, timeout: auth.timeout) {
                    Terminal.write(token.bytes + [0x0A])
                    return
                }
            }
            let named = auth.isNamed
            let store = self.store
            let token = try await auth.withSession(store) { session throws(AuthError) in
                if !named,
                    let token = AgentTokens.token(server: session.items.server, account: session.items.account, store: store, timeout: auth.timeout)
                {
                    return token
                }
                return try await session.tokenSource(onEvent: { EventReport.note($0, verbose: verbose) }).accessToken()
            }
            Terminal.write(token.bytes + [0x0A])
        }
    }
}
