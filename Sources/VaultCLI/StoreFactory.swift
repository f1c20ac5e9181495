import VaultStore

/// Builds the store a `BackendDecision` names.
enum StoreFactory {
    static func open(_ decision: BackendDecision, options: StoreOptions) throws(VaultError) -> any SecureStore {
        switch decision.kind {
        case .file, .auto:
            return fileStore(options: options)
        case .secretService:
            // Fails fast (exit 4) when there is no session bus or no Secret Service on it.
            return try SecretServiceStore(alreadyProbed: decision.serviceAnswered, prompts: options.promptPolicy)
        }
    }

    static func fileStore(options: StoreOptions) -> EncryptedFileStore {
        let environment = options.environment
        return EncryptedFileStore(
            path: EncryptedFileStore.defaultPath(environment: environment),
            passphrase: .standard(file: options.passphraseFile, environment: environment, prompter: TerminalPrompter()),
            kdf: .forNewFiles(environment: environment), lockTimeout: lockTimeout(environment))
    }

    /// `VAULT_LOCK_TIMEOUT` (seconds, 0.1 to 3600; default 10): how long a write waits
    /// for another process's lock on the vault file.
    static func lockTimeout(_ environment: [String: String]) -> Duration {
        guard let raw = environment["VAULT_LOCK_TIMEOUT"], let seconds = Double(raw), seconds.isFinite,
            (0.1...3600).contains(seconds)
        else { return .seconds(10) }
        return .milliseconds(Int(seconds * 1000))
    }
}
