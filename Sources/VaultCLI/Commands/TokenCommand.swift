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
        discussion: """
            The token goes to standard output only, so it never appears in a process list. \
            To hand it to curl without putting it in curl's arguments (readable in /proc), \
            let curl read the header from standard input:

              vault token --server URL --account A | sed 's/^/Authorization: Bearer /' | curl -H @- URL
            """)

    @OptionGroup var auth: AuthOptions
    @OptionGroup var store: StoreOptions

    func run() async throws {
        try await reportingAuthErrors { () async throws(AuthError) in
            let verbose = store.verbose
            let token = try await auth.withSession(store) { session throws(AuthError) in
                try await session.requester(onEvent: { EventReport.note($0, verbose: verbose) }).accessToken()
            }
            Terminal.write(token.bytes + [0x0A])
        }
    }
}
