import Synchronization

/// A vault in one encrypted file, for machines without a Secret Service.
///
/// - Format: `VaultFileFormat` (versioned magic, scrypt parameters and salt in an
///   authenticated header, body sealed with AES-256-GCM). Names and labels are
///   encrypted too.
/// - Every read-modify-write holds an exclusive `flock` on `PATH.lock`, re-reads the
///   file under it and replaces it atomically, so concurrent processes lose no update
///   and a crash never leaves a half-written vault.
/// - The file is created 0600 in a 0700 directory; a file that the group or others can
///   read is refused.
/// - The passphrase is asked for (through `PassphraseSource`) only when the file must be
///   opened or created, and at most once per instance: the derived key is cached.
public final class EncryptedFileStore: SecureStore {
    /// The vault file.
    public let path: String
    private let passphraseSource: PassphraseSource
    private let newFileKDF: KDFParameters
    private let state = Mutex(State())

    private struct State {
        var passphrase: Secret?
        var header: VaultFileFormat.Header?
        var keys: VaultKeys?
        /// The last file contents seen and their decoded items.
        var snapshotBytes: [UInt8]?
        var snapshotItems: [CredentialKey: Credential] = [:]
    }

    /// A store on the vault file at `path`.
    /// - Parameters:
    ///   - passphrase: asked only when the file must be opened or created.
    ///   - kdf: the work factor for files this store creates or re-keys.
    public init(path: String, passphrase: PassphraseSource, kdf: KDFParameters = .default) {
        self.path = path
        self.passphraseSource = passphrase
        self.newFileKDF = kdf
    }

    /// `$VAULT_FILE`, else `${XDG_DATA_HOME:-$HOME/.local/share}/vault/vault.db`.
    public static func defaultPath(environment: [String: String]) -> String {
        if let file = environment["VAULT_FILE"], !file.isEmpty { return file }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return "\(data)/vault/vault.db" }
        return "\(environment["HOME"] ?? "/root")/.local/share/vault/vault.db"
    }

    public var backendName: String { "file" }

    /// The lock file beside the vault (also used by other modules for their own
    /// cross-process single-flight).
    public var lockPath: String { path + ".lock" }

    public func save(_ credential: Credential) throws(VaultError) {
        let key = try credential.key.validated()
        try mutate { items throws(VaultError) in
            items[key] = credential
            return true
        }
    }

    /// Adds or replaces several items in one atomic write (an import).
    public func saveAll(_ credentials: [Credential]) throws(VaultError) {
        var validated: [Credential] = []
        for credential in credentials {
            _ = try credential.key.validated()
            validated.append(credential)
        }
        try mutate { items throws(VaultError) in
            for credential in validated { items[credential.key] = credential }
            return !validated.isEmpty
        }
    }

    public func load(_ key: CredentialKey) throws(VaultError) -> Credential? {
        try state.withLock { state throws(VaultError) in try currentItems(&state)?[key] }
    }

    public func remove(_ key: CredentialKey) throws(VaultError) {
        // Nothing to remove without a file; do not create the directory or the lock file.
        guard FileOperations.exists(path) else { return }
        try mutate { items throws(VaultError) in items.removeValue(forKey: key) != nil }
    }

    public func list(server: String?) throws(VaultError) -> [CredentialInfo] {
        let items = try state.withLock { state throws(VaultError) in try currentItems(&state) ?? [:] }
        return items.values.filter { server == nil || $0.server == server }.map(\.info).sorted()
    }

    /// Re-encrypts the vault under `newPassphrase` with a new salt and this store's
    /// work factor, atomically. Throws `.notFound`-like `.invalidInput` when there is
    /// no vault file yet.
    public func changePassphrase(to newPassphrase: Secret) throws(VaultError) {
        guard !newPassphrase.isEmpty else { throw .invalidInput("the new passphrase must not be empty") }
        try state.withLock { state throws(VaultError) in
            let lock = try FileLock(path: lockPath)
            guard let items = try currentItems(&state) else {
                throw .invalidInput("there is no vault file at \(path) yet; save an item first")
            }
            let header = VaultFileFormat.Header(kdf: newFileKDF, salt: VaultFileFormat.newSalt())
            let keys = try header.kdf.deriveKeys(passphrase: newPassphrase, salt: header.salt)
            try write(items, header: header, keys: keys, state: &state)
            state.passphrase = newPassphrase
            _ = consume lock
        }
    }

    /// Asks the passphrase source for a new passphrase (`.change`) and re-keys.
    public func changePassphrase() throws(VaultError) {
        try changePassphrase(to: passphraseSource.passphrase(for: .change))
    }

    // MARK: - Internals

    /// Runs a read-modify-write under the file lock; `change` returns whether it changed
    /// anything (nothing is written otherwise).
    private func mutate(_ change: (inout [CredentialKey: Credential]) throws(VaultError) -> Bool) throws(VaultError) {
        try state.withLock { state throws(VaultError) in
            try FileOperations.makePrivateDirectory(FileOperations.directory(of: path))
            let lock = try FileLock(path: lockPath)
            FileOperations.removeStaleTemporaryFiles(for: path)
            var items: [CredentialKey: Credential]
            let header: VaultFileFormat.Header
            let keys: VaultKeys
            if let existing = try currentItems(&state), let knownHeader = state.header, let knownKeys = state.keys {
                items = existing
                header = knownHeader
                keys = knownKeys
            } else {
                items = [:]
                header = VaultFileFormat.Header(kdf: newFileKDF, salt: VaultFileFormat.newSalt())
                let passphrase = try obtainPassphrase(.create, cached: state.passphrase)
                keys = try header.kdf.deriveKeys(passphrase: passphrase, salt: header.salt)
                state.passphrase = passphrase
            }
            if try change(&items) {
                try write(items, header: header, keys: keys, state: &state)
            }
            _ = consume lock
        }
    }

    /// The items in the file now, or nil when there is no file. Decrypts only when the
    /// file's bytes differ from the last ones seen.
    private func currentItems(_ state: inout State) throws(VaultError) -> [CredentialKey: Credential]? {
        guard let bytes = try FileOperations.readPrivateFile(path) else { return nil }
        if let seen = state.snapshotBytes, seen == bytes { return state.snapshotItems }
        let header = try VaultFileFormat.parseHeader(bytes)
        let keys: VaultKeys
        if let cached = state.keys, state.header == header {
            keys = cached
        } else {
            let passphrase = try obtainPassphrase(.unlock, cached: state.passphrase)
            keys = try header.kdf.deriveKeys(passphrase: passphrase, salt: header.salt)
            state.passphrase = passphrase
        }
        let body: [UInt8]
        do {
            body = try VaultFileFormat.open(bytes, keys: keys)
        } catch {
            if error == .wrongPassphrase {
                state.passphrase = nil
                state.keys = nil
                state.header = nil
            }
            throw error
        }
        let items = try ItemCodec.decode(body)
        state.header = header
        state.keys = keys
        state.snapshotBytes = bytes
        state.snapshotItems = items
        return items
    }

    /// The passphrase already known, else the source's.
    private func obtainPassphrase(_ purpose: PassphrasePurpose, cached: Secret?) throws(VaultError) -> Secret {
        if let cached { return cached }
        return try passphraseSource.passphrase(for: purpose)
    }

    private func write(
        _ items: [CredentialKey: Credential], header: VaultFileFormat.Header, keys: VaultKeys, state: inout State
    ) throws(VaultError) {
        let sealed = try VaultFileFormat.seal(ItemCodec.encode(items), header: header, keys: keys)
        try FileOperations.atomicWrite(sealed, to: path)
        state.header = header
        state.keys = keys
        state.snapshotBytes = sealed
        state.snapshotItems = items
    }
}
