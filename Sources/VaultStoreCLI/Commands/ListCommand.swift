// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import FoundationEssentials
import VaultStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List items: server, account and label, never secrets.",
        usage: "vault list [<server>] [--json] [--all] [<options>]", discussion: SharedOptionsTopic.pointer)

    @Argument(help: ArgumentHelp("Only the items of this server; or --server.", valueName: "server"))
    var serverArgument: String?
    @Option(name: .customLong("server"), help: ArgumentHelp("Only the items of this server.", valueName: "server"))
    var serverOption: String?
    @Flag(help: "Print a JSON array of {\"server\", \"account\", \"label\"} objects.")
    var json = false
    @Flag(help: "Also list vault's own token and login-settings items (with their kind).")
    var all = false
    @OptionGroup(title: "Store options", visibility: .hidden) var backendChoice: BackendChoice
    @OptionGroup(title: "Store options", visibility: .hidden) var passphraseOption: PassphraseFileOption
    @OptionGroup(title: "Store options", visibility: .hidden) var keyCacheOption: KeyCacheOption
    @OptionGroup(title: "Keyring options", visibility: .hidden) var keyringOptions: KeyringPromptOptions
    @OptionGroup(title: "etcd options", visibility: .hidden) var etcdOptions: EtcdOptions
    var store: StoreOptions { StoreOptions(backendChoice, passphraseOption, keyCacheOption, keyringOptions, etcdOptions) }

    /// The server, given once (as an argument or with --server), or nil for every item.
    var server: String? { serverOption ?? serverArgument }

    func validate() throws {
        try store.validate()
        if let serverOption, let serverArgument {
            throw ValidationError(
                "the server is given twice: '\(UsageMessage.shown(serverArgument))' and --server '\(UsageMessage.shown(serverOption))'")
        }
    }

    func run() throws {
        try reportingErrors { () throws(VaultError) in
            let opened = try store.openStore()
            NotFoundReport.noteMissingFile(opened)
            let items = try listed(opened).filter { all || $0.kind == .password }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                let data = (try? encoder.encode(items)) ?? Data("[]".utf8)
                Terminal.print(ASCIIJSON.escaped(String(decoding: data, as: UTF8.self)))
            } else {
                // Tab-separated; tabs, newlines and escape sequences inside a field (a label
                // another program wrote) are shown escaped, so they reach no terminal raw.
                for info in items {
                    let fields = [info.server, info.account, info.label] + (all ? [info.kind.rawValue] : [])
                    Terminal.print(fields.map { TextEscaping.escaped($0) }.joined(separator: "\t"))
                }
            }
        }
    }

    /// The items `--server` names, normalised as `load` does (`ItemOptions.key`): a URL's
    /// scheme and host lower-cased, a bare host name in any case.
    private func listed(_ opened: any SecureStore) throws(VaultError) -> [CredentialInfo] {
        guard let server else { return try opened.list(server: nil) }
        return try ServerSpelling.list(server: ServerName.normalized(server), in: opened)
    }
}
