import ArgumentParser
import VaultStore

struct PasswdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Re-encrypt the vault file under a new passphrase (file backend).",
        discussion: """
            The current passphrase comes from the usual sources; the new one from \
            --new-passphrase-file, else it is asked twice on the terminal. The file is \
            replaced atomically, with a new salt and the current default work factor.
            """)

    @Option(help: ArgumentHelp("Read the new passphrase from this file.", valueName: "path"))
    var newPassphraseFile: String?
    @OptionGroup var store: StoreOptions

    func run() throws {
        try reportingErrors { () throws(VaultError) in
            let decision = try store.decision()
            guard decision.kind == .file else {
                throw .invalidInput("passwd applies to the file backend only (the chosen backend is \(decision.kind.rawValue))")
            }
            let vault = StoreFactory.fileStore(options: store)
            if let newPassphraseFile {
                try vault.changePassphrase(to: PassphraseSource.readPassphraseFile(newPassphraseFile))
            } else {
                try vault.changePassphrase()
            }
        }
    }
}
