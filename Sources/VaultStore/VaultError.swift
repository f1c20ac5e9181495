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
        }
    }
}
