// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto
import Synchronization

/// A vault in one encrypted file, for machines without a Secret Service.
///
/// - Format: `VaultFileFormat` (versioned magic, scrypt parameters and salt in an
///   authenticated header, body sealed with AES-256-GCM). Names and labels are
///   encrypted too.
/// - Every read-modify-write holds an exclusive `flock` on `PATH.lock`, re-reads the
///   file under it and replaces it atomically, so concurrent processes lose no update
///   and a crash never leaves a half-written vault. The wait for the lock is bounded
///   (`lockTimeout`); giving up names the lock file (`lockTimeout`).
/// - The passphrase is asked for and the key derived *before* the lock is taken, so a
///   person at a prompt never holds up another process; under the lock the header is
///   checked again, and a header that changed meanwhile is opened with the passphrase
///   already known, never with a prompt.
/// - The file is created 0600 in a 0700 directory. A file that the group or others can
///   read, a directory that they can write or that another user owns, a symlink, a FIFO
///   or anything but a regular file at the path, and a file over
///   `FileOperations.maximumVaultSize` are refused (`FileOperations.readPrivateFile`).
/// - The passphrase is asked for (through `PassphraseSource`) only when the file must be
///   opened or created, and at most once per instance: the derived key is cached.
/// - With a ``KeyCachePolicy``, the key scrypt derives is also kept in the kernel's user
///   keyring for the policy's lifetime (with a verifier of its passphrase,
///   ``CachedVaultKey``), and later processes take it from there instead of asking for the
///   passphrase and deriving it again. A passphrase that was *given* (a file, an environment
///   variable: ``PassphraseSource/givenPassphrase()``) is still checked: against the
///   verifier (one HMAC), and when that does not vouch for it, by deriving the key from it
///   as without a cache, so a wrong or former passphrase never opens the vault. A kept key
///   that does not open the file is dropped and the passphrase asked for as usual.
public final class EncryptedFileStore: SecureStore {
    /// The vault file.
    public let path: String
    private let passphraseSource: PassphraseSource
    private let newFileKDF: KDFParameters
    /// How long a write waits for another process's lock before giving up.
    public let lockTimeout: Duration
    private let state = Mutex(State())
    /// Where derived keys are kept between processes, or nil.
    public let keyCache: KeyCachePolicy?

    private struct State {
        var passphrase: Secret?
        var header: VaultFileFormat.Header?
        var keys: VaultKeys?
        /// The header and keys for a file this instance is about to create.
        var newFile: (header: VaultFileFormat.Header, keys: VaultKeys)?
        /// The last file contents seen and their decoded items.
        var snapshotBytes: [UInt8]?
        var snapshotItems: [CredentialKey: Credential] = [:]
    }

    /// A store on the vault file at `path`.
    /// - Parameters:
    ///   - passphrase: asked only when the file must be opened or created.
    ///   - kdf: the work factor for files this store creates or re-keys.
    ///   - lockTimeout: the longest a write waits for another process's lock.
    ///   - keyCache: where the derived key is kept between processes (nil: nowhere).
    public init(
        path: String, passphrase: PassphraseSource, kdf: KDFParameters = .default, lockTimeout: Duration = .seconds(10),
        keyCache: KeyCachePolicy? = nil
    ) {
        self.path = path
        self.keyCache = keyCache
        self.passphraseSource = passphrase
        self.newFileKDF = kdf
        self.lockTimeout = lockTimeout
    }

    /// `$VAULT_FILE`, else `${XDG_DATA_HOME:-$HOME/.local/share}/vault/vault.db`.
    public static func defaultPath(environment: [String: String]) -> String {
        if let file = environment["VAULT_FILE"], !file.isEmpty { return file }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return "\(data)/vault/vault.db" }
        return "\(environment["HOME"] ?? "/root")/.local/share/vault/vault.db"
    }

    /// True when there is something at ``path`` (a vault file, or what the store will
    /// refuse); false before the first save.
    public var fileExists: Bool { FileOperations.exists(path) }

    /// `"file"`; see ``SecureStore/backendName``.
    public var backendName: String { "file" }

    /// The lock file beside the vault that every read-modify-write holds (a ``FileLock``).
    /// Refresh locks are other files in the same directory (``lockDirectory``).
    public var lockPath: String { path + ".lock" }

    /// Validates the key, then adds or replaces the item in one read-modify-write under the file lock,
    /// creating the directory and the file (asking for a new passphrase) when there is none. Throws
    /// ``VaultError/lockTimeout(_:)`` when the lock is not had within ``lockTimeout``.
    /// See ``SecureStore/save(_:)``.
    public func save(_ credential: Credential) throws(VaultError) {
        let key = try credential.key.validated()
        try mutate { items throws(VaultError) in
            items[key] = credential
            return true
        }
    }

    /// Adds or replaces several items in one atomic write. Not public API: only the benchmarks
    /// use it, to seed files of thousands of items (one `save` each rewrites the whole file).
    package func saveAll(_ credentials: [Credential]) throws(VaultError) {
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

    /// Reads and decrypts the file without the lock (writers replace it atomically); nil when there is no
    /// file or no such item. Throws ``VaultError/wrongPassphrase`` or ``VaultError/corrupted(_:)`` for a file
    /// it cannot open. See ``SecureStore/load(_:)``.
    public func load(_ key: CredentialKey) throws(VaultError) -> Credential? {
        try state.withLock { state throws(VaultError) in try currentItems(&state)?[key] }
    }

    /// Removes under the file lock, and writes only when the item was there; without a vault file it
    /// returns at once, creating nothing. See ``SecureStore/remove(_:)``.
    public func remove(_ key: CredentialKey) throws(VaultError) {
        // Nothing to remove without a file; do not create the directory or the lock file.
        guard FileOperations.exists(path) else { return }
        try mutate { items throws(VaultError) in items.removeValue(forKey: key) != nil }
    }

    /// Decrypts the file without the lock; empty when there is no file. See ``SecureStore/list(server:)``.
    public func list(server: String?) throws(VaultError) -> [CredentialInfo] {
        let items = try state.withLock { state throws(VaultError) in try currentItems(&state) ?? [:] }
        return items.values.filter { server == nil || $0.server == server }.map(\.info).sorted()
    }

    /// Re-encrypts the vault under `newPassphrase` with a new salt and this store's work
    /// factor, atomically. The current passphrase comes from the store's source (asked
    /// before the lock is taken); a new passphrase equal to it is refused with
    /// `.invalidInput`, as is a missing vault file. A vault whose passphrase another
    /// process changed meanwhile is left alone (`.wrongPassphrase`).
    public func changePassphrase(to newPassphrase: Secret) throws(VaultError) {
        guard !newPassphrase.isEmpty else { throw .invalidInput("the new passphrase must not be empty") }
        try state.withLock { state throws(VaultError) in
            guard try currentItems(&state, mayAsk: true) != nil, let current = state.header, let currentKeys = state.keys else {
                throw .invalidInput("there is no vault file at \(path) yet; save an item first")
            }
            // Opened with the cached key: a new passphrase still needs the current one.
            try confirmPassphrase(header: current, keys: currentKeys, state: &state)
            guard newPassphrase != state.passphrase else {
                throw .invalidInput("the new passphrase is the same as the current one; the vault is unchanged")
            }
            let header = VaultFileFormat.Header(kdf: newFileKDF, salt: VaultFileFormat.newSalt())
            let keys = try header.kdf.deriveKeys(passphrase: newPassphrase, salt: header.salt)
            let lock = try takeLock()
            // A writer killed earlier may have left a full copy under the old passphrase.
            FileOperations.removeStaleTemporaryFiles(for: path)
            guard let items = try currentItems(&state, mayAsk: false) else {
                throw .invalidInput("the vault file at \(path) disappeared; nothing was changed")
            }
            let oldHeader = state.header
            try write(items, header: header, keys: keys, state: &state)
            state.passphrase = newPassphrase
            if let oldHeader { keyCache?.cache.remove(KeyCachePolicy.name(path: path, header: oldHeader)) }
            keepInCache(keys, header: header, passphrase: newPassphrase)
            _ = consume lock
        }
    }

    // MARK: - Internals

    /// Runs a read-modify-write under the file lock; `change` returns whether it changed
    /// anything (nothing is written otherwise). The passphrase and the keys are settled
    /// before the lock is taken.
    private func mutate(_ change: (inout [CredentialKey: Credential]) throws(VaultError) -> Bool) throws(VaultError) {
        try state.withLock { state throws(VaultError) in
            let directory = FileOperations.directory(of: path)
            try PrivateDirectory.prepare(directory, what: "the vault directory")
            try prepareKeys(&state)
            let lock = try takeLock()
            FileOperations.removeStaleTemporaryFiles(for: path)
            var items: [CredentialKey: Credential]
            let header: VaultFileFormat.Header
            let keys: VaultKeys
            if let existing = try currentItems(&state, mayAsk: false), let knownHeader = state.header, let knownKeys = state.keys {
                items = existing
                header = knownHeader
                keys = knownKeys
            } else {
                items = [:]
                (header, keys) = try newFileKeys(&state)
            }
            if try change(&items) {
                let created = state.newFile != nil && state.newFile?.header == header
                try write(items, header: header, keys: keys, state: &state)
                state.newFile = nil
                if created { keepInCache(keys, header: header, passphrase: state.passphrase) }
            }
            _ = consume lock
        }
    }

    /// Before the lock: opens the file as it is now (asking for the passphrase if needed),
    /// or, when there is none, asks for a new passphrase and derives the new file's keys.
    private func prepareKeys(_ state: inout State) throws(VaultError) {
        if try currentItems(&state, mayAsk: true) == nil { _ = try newFileKeys(&state, mayAsk: true) }
    }

    /// The header and keys of a file to create: made once per instance, with the known
    /// passphrase (asked for as `.create` only when `mayAsk`).
    private func newFileKeys(_ state: inout State, mayAsk: Bool = false) throws(VaultError) -> (VaultFileFormat.Header, VaultKeys) {
        if let prepared = state.newFile { return prepared }
        let passphrase = try obtainPassphrase(.create, state: &state, mayAsk: mayAsk)
        let header = VaultFileFormat.Header(kdf: newFileKDF, salt: VaultFileFormat.newSalt())
        let keys = try header.kdf.deriveKeys(passphrase: passphrase, salt: header.salt)
        state.newFile = (header, keys)
        return (header, keys)
    }

    /// The items in the file now, or nil when there is no file. Decrypts only when the
    /// file's bytes differ from the last ones seen; derives keys only when its header
    /// differs. Without `mayAsk` it never asks for a passphrase (it holds the lock).
    private func currentItems(_ state: inout State, mayAsk: Bool = true) throws(VaultError) -> [CredentialKey: Credential]? {
        guard let bytes = try FileOperations.readPrivateFile(path) else { return nil }
        if let seen = state.snapshotBytes, seen == bytes { return state.snapshotItems }
        let header = try VaultFileFormat.parseHeader(bytes)
        var keys: VaultKeys
        var source = KeySource.derived
        let cacheName = keyCache.map { _ in KeyCachePolicy.name(path: path, header: header) }
        if let known = state.keys, state.header == header {
            keys = known
            source = .memory
        } else if let kept = try keptKeys(named: cacheName, state: &state) {
            keys = kept
            source = .keyCache
        } else {
            let passphrase = try obtainPassphrase(.unlock, state: &state, mayAsk: mayAsk)
            keys = try header.kdf.deriveKeys(passphrase: passphrase, salt: header.salt)
        }
        var body: [UInt8]
        do {
            body = try VaultFileFormat.open(bytes, keys: keys)
        } catch {
            guard source == .keyCache else {
                guard error == .wrongPassphrase else { throw error }
                forgetKeys(&state)
                guard source == .derived else { throw error }
                (keys, body) = try askAgain(bytes, header: header, state: &state, mayAsk: mayAsk)
                return try remember(bytes, header: header, keys: keys, body: body, source: source, cacheName: cacheName, state: &state)
            }
            // A kept key that does not open the file is dropped; the passphrase decides.
            if let cacheName { keyCache?.cache.remove(cacheName) }
            let passphrase = try obtainPassphrase(.unlock, state: &state, mayAsk: mayAsk)
            keys = try header.kdf.deriveKeys(passphrase: passphrase, salt: header.salt)
            source = .derived
            do {
                body = try VaultFileFormat.open(bytes, keys: keys)
            } catch {
                guard error == .wrongPassphrase else { throw error }
                forgetKeys(&state)
                (keys, body) = try askAgain(bytes, header: header, state: &state, mayAsk: mayAsk)
            }
        }
        return try remember(bytes, header: header, keys: keys, body: body, source: source, cacheName: cacheName, state: &state)
    }

    /// After a refused passphrase: asks again while the source does (a terminal prompt,
    /// ``PassphraseSource/maximumTries`` in all; never a given passphrase, never without
    /// `mayAsk`), and returns the keys and body of the first one that opens the file.
    /// `.wrongPassphrase` when none does.
    private func askAgain(
        _ bytes: [UInt8], header: VaultFileFormat.Header, state: inout State, mayAsk: Bool
    ) throws(VaultError) -> (VaultKeys, [UInt8]) {
        var attempt = 1
        while mayAsk, let passphrase = try passphraseSource.passphraseAfterRefusal(attempt: attempt) {
            attempt += 1
            let keys = try header.kdf.deriveKeys(passphrase: passphrase, salt: header.salt)
            do {
                let body = try VaultFileFormat.open(bytes, keys: keys)
                state.passphrase = passphrase
                return (keys, body)
            } catch {
                guard error == .wrongPassphrase else { throw error }
            }
        }
        throw .wrongPassphrase
    }

    /// Decodes the opened `body`, keeps the derived key in the cache when it is new, and
    /// remembers the file's bytes, header, keys and items; returns the items.
    private func remember(
        _ bytes: [UInt8], header: VaultFileFormat.Header, keys: VaultKeys, body: [UInt8], source: KeySource, cacheName: String?,
        state: inout State
    ) throws(VaultError) -> [CredentialKey: Credential] {
        let items = try ItemCodec.decode(body)
        if source == .derived, let cacheName, let keyCache, keyCache.storesNewKeys, let passphrase = state.passphrase {
            keyCache.cache.store(
                cacheName, key: CachedVaultKey(master: keys.masterBytes, passphrase: passphrase).payload, lifetime: keyCache.lifetime)
        }
        if source == .keyCache { keyCache?.notice?("the key of \(path) came from the key cache") }
        state.header = header
        state.keys = keys
        state.snapshotBytes = bytes
        state.snapshotItems = items
        return items
    }

    /// Where the keys that opened a file came from.
    private enum KeySource { case memory, keyCache, derived }

    private func forgetKeys(_ state: inout State) {
        state.passphrase = nil
        state.keys = nil
        state.header = nil
    }

    /// The keys the cache keeps under `name`, if any, and if they may serve: with no
    /// passphrase given, a kept key serves; a given one must be the kept key's (its
    /// verifier), else nil and the caller derives the key from it.
    private func keptKeys(named name: String?, state: inout State) throws(VaultError) -> VaultKeys? {
        guard let keyCache, let name, let payload = keyCache.cache.load(name), let kept = CachedVaultKey(payload: payload) else {
            return nil
        }
        if state.passphrase == nil { state.passphrase = try passphraseSource.givenPassphrase() }
        if let given = state.passphrase, !kept.admits(given) { return nil }
        return VaultKeys(master: SymmetricKey(data: kept.master))
    }

    /// Keeps `keys`, derived from `passphrase`, in the cache (when there is one that stores
    /// new keys) for the policy's lifetime.
    private func keepInCache(_ keys: VaultKeys, header: VaultFileFormat.Header, passphrase: Secret?) {
        guard let keyCache, keyCache.storesNewKeys, let passphrase else { return }
        keyCache.cache.store(
            KeyCachePolicy.name(path: path, header: header), key: CachedVaultKey(master: keys.masterBytes, passphrase: passphrase).payload,
            lifetime: keyCache.lifetime)
    }

    // MARK: - The key cache (`vault lock`, `vault unlock`)

    /// Why the key cache cannot be used here, or nil (also nil without a policy).
    public var keyCacheUnavailability: String? { keyCache?.cache.unavailability }

    /// Opens the vault and keeps its key for `lifetime` seconds (default: the policy's). The
    /// passphrase is always needed (given, or asked for), even when the key is kept already:
    /// a kept key alone never lengthens its own life. `.invalidInput` without a vault
    /// file or without a policy; false when the cache refused the key.
    @discardableResult
    public func cacheKey(lifetime: Int? = nil) throws(VaultError) -> Bool {
        guard let keyCache else { throw .invalidInput("the key cache is off (VAULT_KEY_CACHE_TTL=0 or --no-key-cache)") }
        return try state.withLock { state throws(VaultError) in
            guard try currentItems(&state, mayAsk: true) != nil, let header = state.header, let keys = state.keys else {
                throw .invalidInput("there is no vault file at \(path) yet; save an item first")
            }
            // A kept key alone never lengthens its own life: the passphrase is needed (given or asked).
            try confirmPassphrase(header: header, keys: keys, state: &state)
            guard let passphrase = state.passphrase else { return false }
            return keyCache.cache.store(
                KeyCachePolicy.name(path: path, header: header), key: CachedVaultKey(master: keys.masterBytes, passphrase: passphrase).payload,
                lifetime: lifetime ?? keyCache.lifetime)
        }
    }

    /// Forgets the kept key of the vault file as it is now (no passphrase needed), in `cache`
    /// (default: the policy's); nothing happens without a file or a cache.
    public func forgetCachedKey(in cache: (any DerivedKeyCache)? = nil) throws(VaultError) {
        guard let cache = cache ?? keyCache?.cache, let bytes = try FileOperations.readPrivateFile(path) else { return }
        cache.remove(KeyCachePolicy.name(path: path, header: try VaultFileFormat.parseHeader(bytes)))
        state.withLock { forgetKeys(&$0) }
    }

    /// Makes sure the passphrase is known and is the one of `keys` (a vault opened with a
    /// kept key may not know it yet): given or asked for now, checked by deriving the key.
    /// `.wrongPassphrase` when it is not the current one.
    private func confirmPassphrase(header: VaultFileFormat.Header, keys: VaultKeys, state: inout State) throws(VaultError) {
        guard state.passphrase == nil else { return }
        let passphrase = try obtainPassphrase(.unlock, state: &state, mayAsk: true)
        guard try header.kdf.deriveKeys(passphrase: passphrase, salt: header.salt).masterBytes == keys.masterBytes else {
            state.passphrase = nil
            throw .wrongPassphrase
        }
    }

    /// The passphrase already known, else the source's (remembered). Never asks when
    /// `mayAsk` is false: that is a bug in the caller, not something to prompt for.
    private func obtainPassphrase(_ purpose: PassphrasePurpose, state: inout State, mayAsk: Bool) throws(VaultError) -> Secret {
        if let known = state.passphrase { return known }
        guard mayAsk else {
            throw .backendUnavailable("the vault file was re-keyed by another process while this command ran; run it again")
        }
        let passphrase = try passphraseSource.passphrase(for: purpose)
        state.passphrase = passphrase
        return passphrase
    }

    private func write(
        _ items: [CredentialKey: Credential], header: VaultFileFormat.Header, keys: VaultKeys, state: inout State
    ) throws(VaultError) {
        let sealed = try VaultFileFormat.seal(ItemCodec.encode(items), header: header, keys: keys)
        guard sealed.count <= FileOperations.maximumVaultSize else {
            throw .invalidInput("the vault would grow past \(FileOperations.maximumVaultSize >> 20) MiB; nothing was written")
        }
        try FileOperations.atomicWrite(sealed, to: path)
        state.header = header
        state.keys = keys
        state.snapshotBytes = sealed
        state.snapshotItems = items
    }
}
