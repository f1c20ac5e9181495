// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import FoundationEssentials
import GitCredential
import VaultStore
import VaultStoreCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `git-credential-vault [STORE OPTIONS] get|store|erase`: git's credential helper, so
/// `git config --global credential.helper vault` keeps git's passwords in vault.
///
/// The credential comes on standard input (`key=value` lines, see ``GitCredentialMessage``);
/// `get` answers on standard output. When no vault can be opened (a locked keyring, no
/// passphrase source and no terminal, an unreadable file), `get` prints nothing, says why in
/// one line on stderr, and exits 0, so git asks its next helper or the user. An operation
/// git may add later is ignored, as the protocol asks.
struct GitCredentialCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "git-credential-vault",
        abstract: "git's credential helper: keeps git's passwords in vault.",
        usage: "git-credential-vault [<options>] get|store|erase",
        discussion: """
            Set it up with `git config --global credential.helper vault` (store options may \
            follow: `credential.helper "vault --backend file"`). git runs it with get, store \
            or erase and the credential on standard input. Items are those of \
            `vault save --server PROTOCOL://HOST[:PORT][/PATH] --account USER`, and on the \
            Secret Service the ones git's own libsecret helper reads and writes.
            """,
        version: CommandLineSummary.version)

    @OptionGroup(title: "Store options") var backendChoice: BackendChoice
    @OptionGroup(title: "Store options") var passphraseOption: PassphraseFileOption
    @OptionGroup(title: "Store options") var keyCacheOption: KeyCacheOption
    @OptionGroup(title: "Keyring options") var keyringOptions: KeyringPromptOptions
    // No etcd options: the etcd backend is not part of this program (vault-auth has it).
    var store: StoreOptions { StoreOptions(backendChoice, passphraseOption, keyCacheOption, keyringOptions) }
    func validate() throws { try store.validate() }

    @Argument(help: "get, store or erase (anything else is ignored).")
    var operation: String

    init() {}

    static func main(arguments: [String]) -> Never {
        ArgumentText.requireUTF8()
        AuthExecutable.forgetHandOver()
        CommandLineSummary.runToExit(Self.self, arguments: arguments)
    }

    func run() throws {
        guard ["get", "store", "erase"].contains(operation) else { return }
        let message: GitCredentialMessage
        do throws(VaultError) {
            try store.checkStandardInput(["the credential git sends"])
            message = try GitCredentialMessage(parsing: Self.readMessage())
        } catch {
            try reportingErrors { () throws(VaultError) in throw error }
            return
        }
        if operation == "get" {
            do throws(VaultError) {
                let helper = GitCredentialHelper(store: try store.openStore())
                if let reply = try helper.get(message) { Terminal.write(reply.reply) }
            } catch {
                Terminal.note("\(error.worded); git will ask its next helper")
            }
            return
        }
        try reportingErrors { () throws(VaultError) in
            let helper = GitCredentialHelper(store: try store.openStore())
            if operation == "store" { try helper.store(message) } else { try helper.erase(message) }
        }
    }

    /// Standard input up to the blank line that ends a message (or its end), at most
    /// ``GitCredentialMessage/byteLimit`` bytes.
    static func readMessage() throws(VaultError) -> [UInt8] {
        try BoundedRead.all(fd: STDIN_FILENO, limit: GitCredentialMessage.byteLimit, what: "the credential git sent") { bytes, newFrom in
            // A blank line: the input starts with one, or "\n\n" ends in the new bytes.
            bytes.first == 0x0A || bytes[max(newFrom - 1, 0)...].firstRange(of: [0x0A, 0x0A]) != nil
        }
    }
}
