// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultStore

/// The server and account that name an item: `SERVER ACCOUNT` (as `keyring get SERVICE
/// USER` takes them), or `--server S --account A`, or a flag for one and the other alone
/// (`--server S ACCOUNT`). A name given both ways is refused (exit 2), even when the two agree.
package struct ItemOptions: ParsableArguments {
    package init() {}

    @Argument(help: ArgumentHelp("The server (a host name or URL); or --server.", valueName: "server"))
    var serverArgument: String?

    @Argument(help: ArgumentHelp("The account on that server; or --account.", valueName: "account"))
    var accountArgument: String?

    @Option(name: .customLong("server"), help: ArgumentHelp("The server (a host name or URL).", valueName: "server"))
    var serverOption: String?

    @Option(name: .customLong("account"), help: ArgumentHelp("The account on that server.", valueName: "account"))
    var accountOption: String?

    /// The names given as arguments, in order: they fill what the flags leave out.
    private var positionals: [String] { [serverArgument, accountArgument].compactMap { $0 } }

    /// The server, however it was given (``validate()`` makes sure it was).
    package var server: String { serverOption ?? positionals.first ?? "" }
    /// The account, however it was given.
    package var account: String {
        accountOption ?? (serverOption == nil ? positionals.dropFirst().first : positionals.first) ?? ""
    }

    /// The key; a URL server is normalised like `vault login` does (scheme and host
    /// lower-cased, no trailing slash), so both name the same item.
    package var key: CredentialKey { CredentialKey(server: ServerName.normalized(server), account: account) }

    /// Each name given exactly once; a server URL with user info (`https://user:password@host`)
    /// would put a password in the item's attributes and label, which `list` shows: refused.
    package func validate() throws {
        let missing = (serverOption == nil ? 1 : 0) + (accountOption == nil ? 1 : 0)
        if positionals.count > missing {
            if let serverOption, missing == 1 {
                throw ValidationError(
                    "the server is given twice: '\(UsageMessage.shown(positionals[0]))' and --server '\(UsageMessage.shown(serverOption))'")
            }
            if let accountOption, missing == 1 {
                throw ValidationError(
                    "the account is given twice: '\(UsageMessage.shown(positionals[1]))' and --account '\(UsageMessage.shown(accountOption))'")
            }
            // The surplus word is not quoted: it is most often a secret typed as an argument.
            throw ValidationError(
                missing == 0
                    ? "too many arguments: --server and --account already name the item (a secret is never an argument)"
                    : "too many arguments: give SERVER ACCOUNT only (a secret is read from standard input, never from an argument)")
        }
        if positionals.count < missing {
            let what = serverOption == nil && positionals.isEmpty ? "the server and the account" : "the account"
            throw ValidationError("give \(what): SERVER ACCOUNT, or --server S --account A")
        }
        if let schemeEnd = server.firstRange(of: "://") {
            let authority = server[schemeEnd.upperBound...].prefix { !"/?#".contains($0) }
            if authority.contains("@") {
                throw ValidationError("--server must not contain user info (user@ or user:password@); give the user with --account")
            }
        }
    }
}
