// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultStore

struct SaveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "save",
        abstract: "Add an item, or replace the one with the same server and account.",
        usage: "vault save <server> <account> [--label <label>] [<options>]",
        discussion: """
            The secret is read from standard input: from a pipe, all of it with one trailing \
            newline dropped; from a terminal, at a prompt that does not echo. It is never \
            taken from the command line.

              printf %s "$TOKEN" | vault save api.example.com ci-bot
              printf %s "$TOKEN" | vault save --server api.example.com --account ci-bot

            \(SharedOptionsTopic.pointer)
            """)

    @OptionGroup var item: ItemOptions
    @Option(help: "A human-readable label (default: the keyring item's own, else \"vault: ACCOUNT@SERVER\").")
    var label: String?
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
            try store.checkStandardInput(["the secret"])
            let secret = try SecretInput.read(prompt: "Secret for \(key.account)@\(key.server): ")
            let opened = try store.openStore()
            let new = try NewVaultNotice.prepare(opened)
            try opened.save(Credential(key: key, secret: secret, label: label))
            NewVaultNotice.announce(created: new)
        }
    }
}
