// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// One kind of store, as backend selection sees it: whether it can run here (and why),
/// and how it opens itself. After Python keyring's `viable`/`priority`: a new backend is
/// one conforming type and one line in ``BackendKind/backend`` (and, if `auto` may pick
/// it, in ``BackendSelection/automaticOrder``).
public protocol StoreBackend: Sendable {
    /// Its `--backend` name.
    static var kind: BackendKind { get }

    /// Whether it can run with `environment`, and why, within `probeTimeout`. Never starts
    /// a service, never hangs.
    static func viability(environment: [String: String], probeTimeout: Duration) -> Viability

    /// Opens the store. `viability` is what selection already saw (nil when the backend was
    /// forced), so a backend need not ask the same question twice.
    static func open(_ context: BackendContext, viability: Viability?) throws(VaultError) -> any SecureStore
}

/// A backend's answer to "can I run here?".
public struct Viability: Sendable, Equatable {
    /// True when the backend can be used.
    public var usable: Bool
    /// One line saying why (for `vault backend` and `--verbose`).
    public var reason: String

    /// Creates an answer; `reason` should be one line.
    public init(usable: Bool, reason: String) {
        self.usable = usable
        self.reason = reason
    }
}

/// What a program gives a backend to open itself with.
public struct BackendContext: Sendable {
    /// The environment (`VAULT_FILE`, `VAULT_PASSPHRASE…`, `VAULT_LOCK_TIMEOUT`, the bus).
    public var environment: [String: String]
    /// `--passphrase-file`, when given.
    public var passphraseFile: String?
    /// Who can be asked for a passphrase (the `vault` command's terminal prompt), if anyone.
    public var prompter: (any SecretPrompter)?
    /// What to do with a keyring's prompts.
    public var prompts: PromptPolicy
    /// Told, in one line, where a store's key came from (`--verbose`), or nil.
    public var notice: (@Sendable (String) -> Void)?
    /// False when the store may use a key kept in the key cache but must add none
    /// (`vault exec` leaves no key behind that was not there before it ran).
    public var storesNewCachedKeys = true

    /// Creates a context: by default no passphrase file, no prompter, ``PromptPolicy/never``
    /// and no notices.
    public init(
        environment: [String: String], passphraseFile: String? = nil, prompter: (any SecretPrompter)? = nil,
        prompts: PromptPolicy = .never, notice: (@Sendable (String) -> Void)? = nil
    ) {
        self.environment = environment
        self.passphraseFile = passphraseFile
        self.prompter = prompter
        self.prompts = prompts
        self.notice = notice
    }
}

/// The Secret Service (GNOME Keyring, KeePassXC) through libsecret: usable when the
/// session bus answers and `org.freedesktop.secrets` is on it (`SecretServiceProbe`).
public enum SecretServiceBackend: StoreBackend {
    /// ``BackendKind/secretService``; see ``StoreBackend/kind``.
    public static let kind = BackendKind.secretService

    /// Runs ``SecretServiceProbe/probe(environment:timeout:)`` and appends how long it took to its reason;
    /// see ``StoreBackend/viability(environment:probeTimeout:)``.
    public static func viability(environment: [String: String], probeTimeout: Duration) -> Viability {
        let probe = SecretServiceProbe.probe(environment: environment, timeout: probeTimeout)
        let milliseconds = Double(probe.elapsed.components.attoseconds) / 1e15 + Double(probe.elapsed.components.seconds) * 1000
        return Viability(usable: probe.available, reason: "\(probe.reason) (probe \((milliseconds * 10).rounded() / 10) ms)")
    }

    /// A ``SecretServiceStore`` with `context.prompts`, without a second probe when `viability` says the
    /// service just answered; throws ``VaultError/backendUnavailable(_:)`` when there is no reachable service.
    /// See ``StoreBackend/open(_:viability:)``.
    public static func open(_ context: BackendContext, viability: Viability?) throws(VaultError) -> any SecureStore {
        // Fails fast (backendUnavailable) without a session bus or a Secret Service on it.
        try SecretServiceStore(alreadyProbed: viability?.usable == true, prompts: context.prompts)
    }
}

/// The encrypted vault file: usable everywhere (it needs only a passphrase source).
public enum EncryptedFileBackend: StoreBackend {
    /// ``BackendKind/file``; see ``StoreBackend/kind``.
    public static let kind = BackendKind.file

    /// Always usable; the reason names the vault file (``EncryptedFileStore/defaultPath(environment:)``).
    /// Touches nothing on disk; see ``StoreBackend/viability(environment:probeTimeout:)``.
    public static func viability(environment: [String: String], probeTimeout: Duration) -> Viability {
        Viability(usable: true, reason: "the encrypted file \(EncryptedFileStore.defaultPath(environment: environment))")
    }

    /// An ``EncryptedFileStore`` at the default path, with ``PassphraseSource/standard(file:environment:prompter:)``,
    /// ``KDFParameters/forNewFiles(environment:)``, ``lockTimeout(_:)`` and the key cache
    /// ``KeyCachePolicy/fromEnvironment(_:cache:)`` asks for. Nothing is read and no passphrase is asked for
    /// until the first operation; only a bad `VAULT_KEY_CACHE_TTL` throws. See ``StoreBackend/open(_:viability:)``.
    public static func open(_ context: BackendContext, viability: Viability?) throws(VaultError) -> any SecureStore {
        try store(context)
    }

    /// The encrypted file store `context` names (`vault passwd`, `lock` and `unlock` need the concrete type).
    public static func store(_ context: BackendContext) throws(VaultError) -> EncryptedFileStore {
        let environment = context.environment
        return EncryptedFileStore(
            path: EncryptedFileStore.defaultPath(environment: environment),
            passphrase: .standard(file: context.passphraseFile, environment: environment, prompter: context.prompter),
            kdf: .forNewFiles(environment: environment), lockTimeout: lockTimeout(environment),
            keyCache: try KeyCachePolicy.from(context))
    }

    /// `VAULT_LOCK_TIMEOUT` (seconds, 0.1 to 3600; default 10): how long a write waits
    /// for another process's lock on the vault file.
    public static func lockTimeout(_ environment: [String: String]) -> Duration {
        guard let raw = environment["VAULT_LOCK_TIMEOUT"], let seconds = Double(raw), seconds.isFinite,
            (0.1...3600).contains(seconds)
        else { return .seconds(10) }
        return .milliseconds(Int(seconds * 1000))
    }
}
