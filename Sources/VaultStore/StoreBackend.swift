// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// One kind of store, as backend selection sees it: whether it can run here (and why),
/// and how it opens itself. After Python keyring's `viable`/`priority`: a new backend is
/// one conforming type and one line in ``BackendKind/backend`` (and, if `auto` may pick
/// it, in ``BackendSelection/automaticOrder``).
public protocol StoreBackend: Sendable {
    /// Its `--backend` name.
    static var kind: BackendKind { get }

    /// Whether it can run with `context`, and why, within `probeTimeout`. Never starts
    /// a service, never hangs.
    static func viability(_ context: BackendContext, probeTimeout: Duration) -> Viability

    /// Opens the store. `viability` is what selection already saw (nil when the backend was
    /// forced), so a backend need not ask the same question twice.
    static func open(_ context: BackendContext, viability: Viability?) throws(VaultError) -> any SecureStore
}

/// A backend's answer to "can I run here?".
public struct Viability: Sendable, Equatable {
    /// Yes, no, or not known.
    public enum Verdict: Sendable, Equatable {
        /// The backend can be used.
        case usable
        /// It cannot run here; a later backend may be chosen.
        case unusable
        /// It could not be told whether the backend can be used (a silent session bus):
        /// automatic selection must not choose a later backend then.
        case undecided
    }

    /// The answer.
    public var verdict: Verdict
    /// One line saying why (for `vault backend` and `--verbose`).
    public var reason: String
    /// True when the backend can be used.
    public var usable: Bool { verdict == .usable }

    /// Creates an answer; `reason` should be one line.
    public init(_ verdict: Verdict, reason: String) {
        self.verdict = verdict
        self.reason = reason
    }

    /// A yes or a no; `reason` should be one line.
    public init(usable: Bool, reason: String) {
        self.init(usable ? .usable : .unusable, reason: reason)
    }
}

/// What a program gives a backend to open itself with: typed configuration, never an
/// environment to parse (the `vault` command turns its options and `VAULT_*` variables
/// into these; only ``locations`` comes from the process environment, by the rules of
/// ``StandardLocations``).
public struct BackendContext: Sendable {
    /// The session bus, the XDG directories, systemd's credentials.
    public var locations: StandardLocations
    /// The encrypted file's path and lock timeout.
    public var file: FileStoreConfiguration
    /// Where the passphrase of the vault file (or a fleet) comes from.
    public var passphrase: PassphraseSource
    /// The work factor of new vault files and fleets.
    public var kdf: KDFParameters
    /// Where derived keys are kept between processes (with its notices and whether it may
    /// add keys: ``KeyCachePolicy/readOnly``), or nil for no key cache.
    public var keyCache: KeyCachePolicy?
    /// What to do with a keyring's prompts.
    public var prompts: PromptPolicy
    /// The user's lock directory when the program names one (the `vault` command's
    /// `VAULT_LOCK_DIR`): where a keyring's item write locks go; nil for
    /// ``RefreshLock/perUserDirectory(environment:)``.
    public var lockDirectory: String?
    /// Where a backend tells the person what they should know and cannot be an error (a
    /// write that went ahead without its lock); nil: nowhere.
    public var notice: (@Sendable (String) -> Void)?
    /// The configuration of backends from other modules, by kind (the etcd backend's
    /// `EtcdConfiguration`); each backend documents the type it reads.
    public var configurations: [BackendKind: any Sendable]

    /// Creates a context: by default the vault file at ``StandardLocations/defaultVaultFile``,
    /// no passphrase source but a failing one, the default work factor, no key cache and
    /// ``PromptPolicy/never``.
    public init(
        locations: StandardLocations, file: FileStoreConfiguration? = nil, passphrase: PassphraseSource = .standard(given: []),
        kdf: KDFParameters = .default, keyCache: KeyCachePolicy? = nil, prompts: PromptPolicy = .never,
        configurations: [BackendKind: any Sendable] = [:]
    ) {
        self.locations = locations
        self.file = file ?? FileStoreConfiguration(path: locations.defaultVaultFile)
        self.passphrase = passphrase
        self.kdf = kdf
        self.keyCache = keyCache
        self.prompts = prompts
        self.configurations = configurations
    }
}

/// The Secret Service (GNOME Keyring, KeePassXC) through libsecret: usable when the
/// session bus answers and `org.freedesktop.secrets` is on it (`SecretServiceProbe`).
public enum SecretServiceBackend: StoreBackend {
    /// ``BackendKind/secretService``; see ``StoreBackend/kind``.
    public static let kind = BackendKind.secretService

    /// Runs ``SecretServiceProbe/probe(environment:timeout:)`` on the context's session bus
    /// (``StandardLocations/sessionBusAddress``) and appends how long it took to its reason;
    /// see ``StoreBackend/viability(_:probeTimeout:)``.
    public static func viability(_ context: BackendContext, probeTimeout: Duration) -> Viability {
        let bus = context.locations.sessionBusAddress.map { [SecretServiceProbe.busAddressVariable: $0] } ?? [:]
        let probe = SecretServiceProbe.probe(environment: bus, timeout: probeTimeout)
        let milliseconds = Double(probe.elapsed.components.attoseconds) / 1e15 + Double(probe.elapsed.components.seconds) * 1000
        return Viability(probe.verdict, reason: "\(probe.reason) (probe \((milliseconds * 10).rounded() / 10) ms)")
    }

    /// A ``SecretServiceStore`` with `context.prompts`, without a second probe when `viability` says the
    /// service just answered; throws ``VaultError/backendUnavailable(_:)`` when there is no reachable service.
    /// See ``StoreBackend/open(_:viability:)``.
    public static func open(_ context: BackendContext, viability: Viability?) throws(VaultError) -> any SecureStore {
        // Fails fast (backendUnavailable) without a session bus or a Secret Service on it.
        try SecretServiceStore(
            alreadyProbed: viability?.usable == true, prompts: context.prompts,
            itemLockDirectory: context.lockDirectory ?? RefreshLock.perUserDirectory(), notice: context.notice)
    }
}

/// The encrypted vault file: usable everywhere (it needs only a passphrase source).
public enum EncryptedFileBackend: StoreBackend {
    /// ``BackendKind/file``; see ``StoreBackend/kind``.
    public static let kind = BackendKind.file

    /// Always usable; the reason names the vault file (``BackendContext/file``). Touches
    /// nothing on disk; see ``StoreBackend/viability(_:probeTimeout:)``.
    public static func viability(_ context: BackendContext, probeTimeout: Duration) -> Viability {
        Viability(usable: true, reason: "the encrypted file \(context.file.path)")
    }

    /// ``store(_:)``; see ``StoreBackend/open(_:viability:)``.
    public static func open(_ context: BackendContext, viability: Viability?) throws(VaultError) -> any SecureStore {
        store(context)
    }

    /// The encrypted file store `context` names, with its passphrase source, work factor
    /// and key cache (`vault passwd`, `lock` and `unlock` need the concrete type). Nothing is
    /// read and no passphrase is asked for until the first operation.
    public static func store(_ context: BackendContext) -> EncryptedFileStore {
        EncryptedFileStore(
            path: context.file.path, passphrase: context.passphrase, kdf: context.kdf, lockTimeout: context.file.lockTimeout,
            keyCache: context.keyCache)
    }
}
