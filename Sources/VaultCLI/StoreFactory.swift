import VaultStore

/// Builds the store a `BackendDecision` names.
enum StoreFactory {
    static func open(_ decision: BackendDecision, options: StoreOptions) throws(VaultError) -> any SecureStore {
        switch decision.kind {
        case .file, .auto:
            return fileStore(options: options)
        case .secretService:
            // Fails fast (exit 4) when there is no session bus or no Secret Service on it.
            return try SecretServiceStore(alreadyProbed: decision.serviceAnswered)
        }
    }

    static func fileStore(options: StoreOptions) -> EncryptedFileStore {
        let environment = options.environment
        return EncryptedFileStore(
            path: EncryptedFileStore.defaultPath(environment: environment),
            passphrase: .standard(file: options.passphraseFile, environment: environment),
            kdf: .forNewFiles(environment: environment))
    }
}
