// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto
import VaultSync

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A vault in one encrypted file, for machines without a Secret Service: ``VaultFileFormat``
/// (scrypt, an authenticated header, the body, names and labels included, sealed with AES-256-GCM),
/// version 1 while it holds no Secret Service item or collection, else 2. Every write is a
/// read-modify-write of the whole contents under an exclusive `flock` on `PATH.lock`, replaced
/// atomically; the passphrase is asked for (once per instance) before the lock is taken; unsafe
/// files and paths are refused; a ``KeyCachePolicy`` keeps the derived key (``CachedVaultKey``),
/// still checking a given passphrase. Docs: docs/file-format.md ("Versions", "Storage conventions")
/// and docs/unattended.md ("The key cache").
public final class EncryptedFileStore: VaultContentsStore, KeyDroppingStore {
    /// The vault file.
    public let path: String
    /// The passphrase (once per instance) and the key cache.
    private let unlocker: KeyUnlocker
    private let newFileKDF: KDFParameters
    /// How long a write waits for another process's lock before giving up.
    public let lockTimeout: Duration
    private let state = Locked(State())
    /// Where derived keys are kept between processes, or nil.
    public var keyCache: KeyCachePolicy? { unlocker.keyCache }

    private struct State {
        var header: VaultFileFormat.Header?
        var keys: VaultKeys?
        /// The header and keys for a file this instance is about to create.
        var newFile: (header: VaultFileFormat.Header, keys: VaultKeys)?
        /// The last file contents seen and what they decoded to.
        var snapshotBytes: [UInt8]?
        var snapshotContents = VaultContents() {
            didSet { snapshotRevision = .next() }
        }
        /// Changes with every snapshot (``ContentsRevision``).
        var snapshotRevision = ContentsRevision.next()
        /// The order of the last write, reused by the next (``WriteOrder``).
        var writeOrder = WriteOrder()
        /// Set by ``dropKeys()``: nothing is read or written any more.
        var dropped = false
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
        self.unlocker = KeyUnlocker(passphrase: passphrase, keyCache: keyCache)
        self.newFileKDF = kdf
        self.lockTimeout = lockTimeout
    }

    /// A store on the vault `configuration` names; see ``init(path:passphrase:kdf:lockTimeout:keyCache:)``.
    public convenience init(
        _ configuration: FileStoreConfiguration, passphrase: PassphraseSource, kdf: KDFParameters = .default,
        keyCache: KeyCachePolicy? = nil
    ) {
        self.init(path: configuration.path, passphrase: passphrase, kdf: kdf, lockTimeout: configuration.lockTimeout, keyCache: keyCache)
    }

    /// True when there is something at ``path`` (a vault file, or what the store will
    /// refuse); false before the first save.
    public var fileExists: Bool { FileOperations.exists(path) }

    /// `"file"`; see ``SecureStore/backendName``.
    public var backendName: String { "file" }

    /// The lock file beside the vault: every read-modify-write of this store holds an
    /// exclusive `flock` on it. (The refresh locks of the accounts kept here are other files
    /// in the same directory, ``lockDirectory``.)
    public var lockPath: String { path + ".lock" }

    /// Makes and checks the place of the file as a write would (the private directory and
    /// the lock file), refusing it the same way, without reading or writing the file: so a
    /// first `save` refuses a bad place before it says it is creating a vault there.
    package func preparePlace() throws(VaultError) {
        try PrivateDirectory.prepare(FileOperations.directory(of: path), what: "the vault directory")
        try FileLock.check(path: lockPath)
    }

    /// Validates the key, then adds or replaces the item in one read-modify-write under the file lock,
    /// creating the directory and the file (asking for a new passphrase) when there is none. Throws
    /// ``VaultError/lockTimeout(_:)`` when the lock is not had within ``lockTimeout``.
    /// See ``SecureStore/save(_:)``.
    public func save(_ credential: Credential) throws(VaultError) {
        let key = try credential.key.validated()
        let now = UInt64(max(0, time(nil)))
        try mutate { contents throws(VaultError) in
            contents.save(Credential(key: key, secret: credential.secret, label: credential.label), now: now)
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
        try mutate { contents throws(VaultError) in
            for credential in validated { contents.credentials[credential.key] = credential }
            return !validated.isEmpty
        }
    }

    /// Reads and decrypts the file without the lock (writers replace it atomically); nil when there is no
    /// file or no such item. Throws ``VaultError/wrongPassphrase`` or ``VaultError/corrupted(_:)`` for a file
    /// it cannot open. See ``SecureStore/load(_:)``.
    public func load(_ key: CredentialKey) throws(VaultError) -> Credential? {
        try state.withLock { state throws(VaultError) in try currentContents(&state)?.credential(for: key) }
    }

    /// Removes under the file lock, and writes only when the item was there; without a vault file it
    /// returns at once, creating nothing. See ``SecureStore/remove(_:)``.
    public func remove(_ key: CredentialKey) throws(VaultError) {
        // Nothing to remove without a file; do not create the directory or the lock file.
        guard FileOperations.exists(path) else { return }
        try mutate { contents throws(VaultError) in contents.remove(key) }
    }

    /// Decrypts the file without the lock; empty when there is no file. See ``SecureStore/list(server:)``.
    public func list(server: String?) throws(VaultError) -> [CredentialInfo] {
        let infos = try state.withLock { state throws(VaultError) in try currentContents(&state)?.keyedInfos ?? [] }
        return infos.filter { server == nil || $0.server == server }
    }

    /// Re-encrypts the vault under `newPassphrase` with a new salt and this store's work
    /// factor, atomically. The current passphrase comes from the store's source (asked
    /// before the lock is taken); a new passphrase equal to it is refused with
    /// `.invalidInput`, as is a missing vault file. A vault whose passphrase another
    /// process changed meanwhile is left alone (`.wrongPassphrase`).
    public func changePassphrase(to newPassphrase: Secret) throws(VaultError) {
        guard !newPassphrase.isEmpty else { throw .invalidInput("the new passphrase must not be empty") }
        try state.withLock { state throws(VaultError) in
            guard try currentContents(&state, mayAsk: true) != nil, let current = state.header, let currentKeys = state.keys else {
                throw .invalidInput("there is no vault file at \(path) yet; save an item first")
            }
            // Opened with the cached key: a new passphrase still needs the current one.
            try unlocker.confirmPassphrase(of: currentKeys.master, kdf: current.kdf, salt: current.salt)
            guard newPassphrase != unlocker.knownPassphrase else {
                throw .invalidInput("the new passphrase is the same as the current one; the vault is unchanged")
            }
            let header = VaultFileFormat.Header(kdf: newFileKDF, salt: VaultFileFormat.newSalt())
            let keys = try header.kdf.deriveKeys(passphrase: newPassphrase, salt: header.salt)
            let lock = try takeLock()
            // A writer killed earlier may have left a full copy under the old passphrase.
            FileOperations.removeStaleTemporaryFiles(for: path)
            guard let contents = try currentContents(&state, mayAsk: false) else {
                throw .invalidInput("the vault file at \(path) disappeared; nothing was changed")
            }
            let oldHeader = state.header
            try write(contents, header: header, keys: keys, state: &state)
            unlocker.remember(newPassphrase)
            if let oldHeader { keyCache?.cache.remove(KeyCachePolicy.name(path: path, header: oldHeader)) }
            unlocker.keep(keys.master, cacheName: KeyCachePolicy.name(path: path, header: header))
            _ = consume lock
        }
    }

    // MARK: - The whole contents (the Secret Service items too)

    /// The contents now, nil without a file: read without the lock, decrypted only when the
    /// file changed. See ``VaultContentsStore/contents()``.
    public func contents() throws(VaultError) -> VaultContents? {
        try state.withLock { state throws(VaultError) in try currentContents(&state) }
    }

    /// ``contents()`` and its snapshot's revision: the same while the file is unchanged.
    public func revisedContents() throws(VaultError) -> (contents: VaultContents, revision: ContentsRevision)? {
        try state.withLock { state throws(VaultError) in
            try currentContents(&state).map { ($0, state.snapshotRevision) }
        }
    }

    /// One read-modify-write under the file lock (creating the file when there is none),
    /// written at version 1 while the contents ``VaultContents/fitsVersion1``, else at
    /// version 2. Contents the file cannot hold (an invalid id, an item in a collection
    /// that does not exist, a `login` collection record) are refused as `.invalidInput`
    /// and nothing is written. See ``VaultContentsStore/modifyContents(_:)``.
    public func modifyContents(_ change: (inout VaultContents) throws(VaultError) -> Bool) throws(VaultError) {
        try mutate(change)
    }

    // MARK: - Internals

    /// Runs a read-modify-write under the file lock; `change` returns whether it changed
    /// anything (nothing is written otherwise). The passphrase and the keys are settled
    /// before the lock is taken.
    private func mutate(_ change: (inout VaultContents) throws(VaultError) -> Bool) throws(VaultError) {
        try state.withLock { state throws(VaultError) in
            if state.dropped { throw VaultError.keysDropped }
            let directory = FileOperations.directory(of: path)
            try PrivateDirectory.prepare(directory, what: "the vault directory")
            try prepareKeys(&state)
        }
        // The file lock is waited for outside the state's mutex: reads of this store
        // (`contents()`, `load`, `list`, which need no lock) go on meanwhile, so one write
        // stuck behind another process's lock holds up no reader (the Secret Service's
        // other clients). Writers of this process still take turns: the lock is per open file.
        let lock = try takeLock()
        try state.withLock { state throws(VaultError) in
            // The keys may have been dropped while the lock was awaited (an agent's lock).
            if state.dropped { throw VaultError.keysDropped }
            FileOperations.removeStaleTemporaryFiles(for: path)
            var contents: VaultContents
            let header: VaultFileFormat.Header
            let keys: VaultKeys
            if try currentContents(&state, mayAsk: false) != nil, let knownHeader = state.header, let knownKeys = state.keys {
                // Taken out of the snapshot, so that the change edits the only copy in place
                // (copying 10,000 items, then freeing the old ones, took a sixth of a save).
                // The write sets the snapshot again. Without a write the next read decrypts
                // the file again: a change that says it changed nothing may have changed
                // something before it gave up (the provider's faults).
                contents = state.snapshotContents
                state.snapshotContents = VaultContents()
                state.snapshotBytes = nil
                header = knownHeader
                keys = knownKeys
            } else {
                contents = VaultContents()
                (header, keys) = try newFileKeys(&state)
            }
            if try change(&contents) {
                let created = state.newFile != nil && state.newFile?.header == header
                try write(contents, header: header, keys: keys, state: &state)
                state.newFile = nil
                if created { unlocker.keep(keys.master, cacheName: KeyCachePolicy.name(path: path, header: header)) }
            }
        }
        _ = consume lock
    }

    /// Before the lock: opens the file as it is now (asking for the passphrase if needed),
    /// or, when there is none, asks for a new passphrase and derives the new file's keys.
    private func prepareKeys(_ state: inout State) throws(VaultError) {
        if try currentContents(&state, mayAsk: true) == nil { _ = try newFileKeys(&state, mayAsk: true) }
    }

    /// The header and keys of a file to create: made once per instance, with the known
    /// passphrase (asked for as `.create` only when `mayAsk`).
    private func newFileKeys(_ state: inout State, mayAsk: Bool = false) throws(VaultError) -> (VaultFileFormat.Header, VaultKeys) {
        if let prepared = state.newFile { return prepared }
        let passphrase = try unlocker.passphrase(for: .create, mayAsk: mayAsk)
        let header = VaultFileFormat.Header(kdf: newFileKDF, salt: VaultFileFormat.newSalt())
        let keys = try header.kdf.deriveKeys(passphrase: passphrase, salt: header.salt)
        state.newFile = (header, keys)
        return (header, keys)
    }

    /// The contents of the file now, or nil when there is no file. Decrypts only when the
    /// file's bytes differ from the last ones seen; finds keys (``KeyUnlocker``: the key
    /// cache, else the passphrase, asked again at a terminal after a refusal) only when its
    /// header differs. Without `mayAsk` it never asks for a passphrase (it holds the lock).
    private func currentContents(_ state: inout State, mayAsk: Bool = true) throws(VaultError) -> VaultContents? {
        if state.dropped { throw VaultError.keysDropped }
        guard let bytes = try FileOperations.readPrivateFile(path) else { return nil }
        if let seen = state.snapshotBytes, seen.hasSameBytes(as: bytes) { return state.snapshotContents }
        let header = try VaultFileFormat.parseHeader(bytes)
        let keys: VaultKeys
        let body: [UInt8]
        do {
            if let known = state.keys, state.header == header {
                keys = known
                body = try VaultFileFormat.open(bytes, keys: known)
            } else {
                let cacheName = keyCache.map { _ in KeyCachePolicy.name(path: path, header: header) }
                (keys, body) = try unlocker.unlock(
                    kdf: header.kdf, salt: header.salt, cacheName: cacheName, notice: "the key of \(path) came from the key cache",
                    mayAsk: mayAsk, asksAgain: true
                ) { master throws(VaultError) -> (VaultKeys, [UInt8])? in
                    let keys = VaultKeys(master: master)
                    do throws(VaultError) {
                        return (keys, try VaultFileFormat.open(bytes, keys: keys))
                    } catch {
                        guard error == .wrongPassphrase else { throw error }
                        return nil
                    }
                }.opened
            }
        } catch {
            if error == .wrongPassphrase { forgetKeys(&state) }
            throw error
        }
        let contents = try ContentsCodec.decode(body, version: VaultFileFormat.formatVersion(of: bytes))
        state.header = header
        state.keys = keys
        state.snapshotBytes = bytes
        state.snapshotContents = contents
        return contents
    }

    /// Drops the keys and the decrypted contents for good (``KeyDroppingStore``): a write
    /// waiting for the file lock gives up once it has it, before writing anything.
    public func dropKeys() {
        state.withLock { state in
            state.dropped = true
            forgetKeys(&state)
            state.newFile = nil
            state.snapshotBytes = nil
            state.snapshotContents = VaultContents()
            state.writeOrder = WriteOrder()
        }
    }

    private func forgetKeys(_ state: inout State) {
        unlocker.forgetPassphrase()
        state.keys = nil
        state.header = nil
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
        guard let keyCache else { throw VaultError.invalidInput("the key cache is off").with(.enableKeyCache) }
        return try state.withLock { state throws(VaultError) in
            guard try currentContents(&state, mayAsk: true) != nil, let header = state.header, let keys = state.keys else {
                throw .invalidInput("there is no vault file at \(path) yet; save an item first")
            }
            // A kept key alone never lengthens its own life: the passphrase is needed (given or asked).
            try unlocker.confirmPassphrase(of: keys.master, kdf: header.kdf, salt: header.salt)
            guard let passphrase = unlocker.knownPassphrase else { return false }
            return keyCache.cache.store(
                KeyCachePolicy.name(path: path, header: header), key: CachedVaultKey(master: keys.masterBytes, passphrase: passphrase).payload,
                lifetime: lifetime ?? keyCache.lifetime)
        }
    }

    /// Whether the key cache holds a key for the vault file as it is now: nil without a
    /// cache or a file. (`vault agent` not given a passphrase holds its key only as long.)
    public func cacheHoldsKey() throws(VaultError) -> Bool? {
        guard let cache = keyCache?.cache, let bytes = try FileOperations.readPrivateFile(path) else { return nil }
        return cache.load(KeyCachePolicy.name(path: path, header: try VaultFileFormat.parseHeader(bytes))) != nil
    }

    /// Forgets the kept key of the vault file as it is now (no passphrase needed), in `cache`
    /// (default: the policy's); nothing happens without a file or a cache.
    public func forgetCachedKey(in cache: (any DerivedKeyCache)? = nil) throws(VaultError) {
        guard let cache = cache ?? keyCache?.cache, let bytes = try FileOperations.readPrivateFile(path) else { return }
        cache.remove(KeyCachePolicy.name(path: path, header: try VaultFileFormat.parseHeader(bytes)))
        state.withLock { forgetKeys(&$0) }
    }

    private func write(
        _ contents: VaultContents, header: VaultFileFormat.Header, keys: VaultKeys, state: inout State
    ) throws(VaultError) {
        let (version, body) = try ContentsCodec.encode(contents, order: &state.writeOrder)
        let sealed = try VaultFileFormat.seal(body, version: version, header: header, keys: keys)
        guard sealed.count <= FileOperations.maximumVaultSize else {
            throw .invalidInput("the vault would grow past \(FileOperations.maximumVaultSize >> 20) MiB; nothing was written")
        }
        try FileOperations.atomicWrite(sealed, to: path)
        state.header = header
        state.keys = keys
        state.snapshotBytes = sealed
        state.snapshotContents = contents
    }
}
