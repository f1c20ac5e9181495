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

struct PasswdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Re-encrypt the vault file under a new passphrase (file backend).",
        usage: "vault passwd [--new-passphrase-file <path>] [<options>]",
        discussion: """
            The current passphrase comes from the usual sources; the new one from \
            --new-passphrase-file, else VAULT_NEW_PASSPHRASE_FILE, else it is asked twice \
            on the terminal (never from the current passphrase's sources: with none of \
            these, exit 2 and the vault is unchanged). A new passphrase equal to the \
            current one is refused. The file is replaced atomically, with a new salt and \
            the current default work factor.
            """)

    @Option(help: ArgumentHelp("Read the new passphrase from this file.", valueName: "path"))
    var newPassphraseFile: String?
    @OptionGroup(title: "Store options") var backendChoice: BackendChoice
    @OptionGroup(title: "Store options") var passphraseOption: PassphraseFileOption
    var store: StoreOptions { StoreOptions(backendChoice, passphraseOption) }
    func validate() throws { try store.validate() }

    func run() throws {
        try reportingErrors { () throws(VaultError) in
            let newFile = StoreVariables.newPassphraseFile(option: newPassphraseFile, store.variables)
            try store.checkStandardInput(newFile == PassphraseSource.standardInputName ? ["--new-passphrase-file"] : [])
            let decision = try store.decision()
            guard decision.kind == .file else {
                throw .invalidInput("passwd applies to the file backend only (the chosen backend is \(decision.kind.rawValue))")
            }
            let vault = try StoreFactory.fileStore(options: store)
            guard FileManager.default.fileExists(atPath: vault.path) else {
                throw .invalidInput("there is no vault file at \(vault.path) yet; save an item first")
            }
            let newPassphrase = try PassphraseSource.newPassphrase(file: newFile, prompter: TerminalPrompter())
            try vault.changePassphrase(to: newPassphrase)
            // An agent holding the old key could read nothing more and would retry for ever.
            let configuration = store.configuration
            _ = AgentNotice.tell(
                .rekeyed(store: configuration.decidedStoreKey(.file)), what: "drop the old key", variables: configuration.variables,
                verbose: configuration.verbose)
        }
    }
}
