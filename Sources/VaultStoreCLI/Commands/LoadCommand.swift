// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultStore

struct LoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Print an item's secret on standard output.",
        usage: "vault load <server> <account> [<options>]",
        discussion: """
            The secret is written as stored, with a newline added only when standard \
            output is a terminal. Exits 1 when there is no such item.

              vault load api.example.com ci-bot
              vault load --server api.example.com --account ci-bot
            """)

    @OptionGroup var item: ItemOptions
    @OptionGroup var store: StoreOptions

    func run() throws {
        try reportingErrors { () throws(VaultError) in
            let key = try item.key.validated()
            let opened = try store.openStore()
            NotFoundReport.requireVaultFile(opened)
            guard let credential = try ServerSpelling.load(key, in: opened) else { NotFoundReport.exit(key, in: opened) }
            Terminal.write(credential.secret.bytes + (Terminal.stdoutIsTerminal ? [0x0A] : []))
        }
    }
}
