// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultStore

struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an item. Removing an item that does not exist succeeds.",
        usage: "vault remove <server> <account> [<options>]")

    @OptionGroup var item: ItemOptions
    @OptionGroup var store: StoreOptions

    func run() throws {
        try reportingErrors { () throws(VaultError) in
            try store.openStore().remove(item.key.validated())
        }
    }
}
