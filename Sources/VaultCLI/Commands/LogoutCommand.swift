// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultAuth
import VaultStore

struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Forget an account's tokens and login settings (and, with --forget-password, its password).")

    @OptionGroup var auth: AuthOptions
    @Flag(help: "Also remove the stored password.")
    var forgetPassword = false
    @OptionGroup var store: StoreOptions

    func run() async throws {
        try await reportingAuthErrors { () async throws(AuthError) in
            try await auth.withSession(store) { session throws(AuthError) in
                try await session.logout(forgetPassword: forgetPassword)
            }
        }
    }
}
