// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultStore

struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an item. Removing an item that does not exist succeeds.",
        usage: "vault remove <server> <account> [<options>]", discussion: SharedOptionsTopic.pointer)

    @OptionGroup var item: ItemOptions
    @OptionGroup(title: "Store options", visibility: .hidden) var backendChoice: BackendChoice
    @OptionGroup(title: "Store options", visibility: .hidden) var passphraseOption: PassphraseFileOption
    @OptionGroup(title: "Store options", visibility: .hidden) var keyCacheOption: KeyCacheOption
    @OptionGroup(title: "Keyring options", visibility: .hidden) var keyringOptions: KeyringPromptOptions
    @OptionGroup(title: "etcd options", visibility: .hidden) var etcdOptions: EtcdOptions
    var store: StoreOptions { StoreOptions(backendChoice, passphraseOption, keyCacheOption, keyringOptions, etcdOptions) }
    func validate() throws { try store.validate() }

    func run() throws {
        try reportingErrors { () throws(VaultError) in
            let key = try item.key.validated()
            let opened = try store.openStore()
            if NotFoundReport.noteMissingFile(opened) { return }
            try opened.remove(key)
            RemoveHint.noteOtherSpellings(of: key, in: opened)
            AgentNotice.accountChanged(server: ServerName.normalized(key.server), account: key.account, store.configuration)
        }
    }
}
