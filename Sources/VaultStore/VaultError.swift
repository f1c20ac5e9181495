// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The one error type of every store. Each case is something a caller can act on, and
/// none of them ever carries a secret.
public enum VaultError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No item under this key (the library returns nil instead; the CLI uses this).
    case notFound(CredentialKey)
    /// The keyring or collection is locked and cannot be unlocked without a prompt.
    case locked(String)
    /// The keyring asked a person to approve the operation (a client's access to an item,
    /// a deletion) and got no approval: declined, not answered in time, or not shown
    /// because nobody is there to answer (``PromptPolicy/never``). Nothing was changed.
    case notApproved(String)
    /// The passphrase does not open the vault file.
    case wrongPassphrase
    /// The stored data is damaged or was modified: it is refused, never decoded.
    case corrupted(String)
    /// The file is not a vault file this version can read (another format, a newer
    /// format version, an unknown algorithm).
    case unsupportedFormat(String)
    /// The backend cannot be used here (no D-Bus, no keyring, an I/O failure).
    case backendUnavailable(String)
    /// A file or directory has permissions that are unsafe or that stop us.
    case permission(String)
    /// The caller's input is unusable (an empty account, a missing passphrase source).
    case invalidInput(String)
    /// The backend refused who we are: a wrong user or password for etcd, or a role that
    /// does not grant the prefix.
    case accessDenied(String)
    /// The item was changed by another process (another machine of a fleet) after this
    /// one read it: nothing was written; read it again and decide anew.
    case conflict(String)
    /// A lock (a lock file's `flock`, a fleet's lock in etcd) stayed held by another
    /// process or machine past the caller's bound, or the wait for it was cancelled; the
    /// message names the lock. Nothing was changed.
    case lockTimeout(String)
    /// `error`, with what fixes it (``Remedy``): the library says *what* to do, the program
    /// that embeds it says *how* with its own names (the `vault` command with its options
    /// and variables). Its exit code and its kind are `error`'s (``withoutRemedy``).
    indirect case remedied(VaultError, Remedy)

    /// One line for a person: the problem and, where there is one, the fix. Never contains a secret
    /// (``notFound(_:)`` names the account and server only).
    public var description: String {
        switch self {
        case .notFound(let key): "no item for account \"\(key.account)\" on server \"\(key.server)\""
        case .locked(let why): why
        case .notApproved(let why): why
        case .wrongPassphrase: "wrong passphrase (or the vault's header was modified)"
        case .corrupted(let why): "the vault is damaged or was tampered with: \(why)"
        case .unsupportedFormat(let why): why
        case .backendUnavailable(let why): "backend unavailable: \(why)"
        case .permission(let why): why
        case .invalidInput(let why): why
        case .accessDenied(let why): why
        case .conflict(let why): why
        case .lockTimeout(let why): why
        case .remedied(let error, let remedy): "\(error.description) (\(remedy.description))"
        }
    }

    /// This error without its remedy: the case a caller branches on.
    public var withoutRemedy: VaultError {
        if case .remedied(let error, _) = self { return error.withoutRemedy }
        return self
    }

    /// What fixes this error, when the library knows.
    public var remedy: Remedy? {
        if case .remedied(_, let remedy) = self { return remedy }
        return nil
    }

    /// This error with `remedy`.
    public func with(_ remedy: Remedy) -> VaultError { .remedied(withoutRemedy, remedy) }

    /// What the caller of a store can do about an error, named without any program's
    /// options or variables (a program words it: ``VaultError/remedied(_:_:)``).
    public enum Remedy: Sendable, Equatable, CustomStringConvertible {
        /// Give the passphrase without a prompt (``PassphraseSource/Given``): nobody can be asked.
        case givePassphrase
        /// Give the new passphrase of a change without a prompt: nobody can be asked.
        case giveNewPassphrase
        /// Turn the key cache on (``KeyCachePolicy``): it is off.
        case enableKeyCache
        /// Use another backend: this one cannot run here.
        case useAnotherBackend
        /// Try again once the backend answers, or use another backend: it is there but did not answer in time.
        case retryOrUseAnotherBackend
        /// Choose the backend: automatic selection could not tell which one holds the items.
        case chooseBackend
        /// Create the keyring's default collection as `how` says, or use another backend.
        case createCollection(String)
        /// Authenticate: the backend wants a user and its password, and none was given.
        case authenticate
        /// Name the backend's user in the configuration (not in a client certificate).
        case authenticateByUser
        /// Give TLS files (CAs, a client certificate and its key) in PEM.
        case givePEMFiles
        /// Name the real file, not a symbolic link to it.
        case useRealFile
        /// Wait longer for another process's lock (a longer lock timeout).
        case waitLonger

        /// The remedy in the library's own words.
        public var description: String {
            switch self {
            case .givePassphrase: "give a passphrase: a file, a systemd credential or the passphrase itself"
            case .giveNewPassphrase: "give the new passphrase"
            case .enableKeyCache: "give the store a key cache policy"
            case .useAnotherBackend: "use another backend"
            case .retryOrUseAnotherBackend: "try again once it answers, or use another backend"
            case .chooseBackend: "choose the backend"
            case .createCollection(let how): how
            case .authenticate: "the backend's authentication is on: give a user and its password"
            case .authenticateByUser: "the user comes from the configuration"
            case .givePEMFiles: "they must be PEM"
            case .useRealFile: "name the real file"
            case .waitLonger: "a longer lock timeout waits longer"
            }
        }
    }
}
