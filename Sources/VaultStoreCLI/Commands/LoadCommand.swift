// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultAgentProtocol
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

            \(SharedOptionsTopic.pointer)
            """)

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
            if let secret = Self.fromAgent(key, store: store) {
                Terminal.write(secret + (Terminal.stdoutIsTerminal ? [0x0A] : []))
                return
            }
            let opened = try store.openStore()
            NotFoundReport.requireVaultFile(opened)
            guard let credential = try ServerSpelling.load(key, in: opened) else { NotFoundReport.exit(key, in: opened) }
            Terminal.write(credential.secret.bytes + (Terminal.stdoutIsTerminal ? [0x0A] : []))
        }
    }

    /// The item's secret served by `vault agent` when it may be asked (``AgentAccess``),
    /// else nil (the command reads the store itself, with the same output).
    static func fromAgent(_ key: CredentialKey, store: StoreOptions) -> [UInt8]? {
        guard let agent = AgentAccess.forServing(store.configuration) else { return nil }
        let request = AgentRequest.load(store: store.configuration.agentStoreKey, server: key.server, account: key.account)
        guard let fields = agent.ask(request, timeout: AgentAccess.servingTimeout) else { return nil }
        guard let reply = AgentLoadReply(fields: fields) else {
            agent.fellBack(AgentClientError.malformed.description)
            return nil
        }
        agent.served("the item")
        return reply.secret
    }
}
