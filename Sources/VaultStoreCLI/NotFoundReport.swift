// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// "Not found" that helps: a missing vault file is named as such, and an item missing
/// under one spelling of a server names the spelling that holds it.
package enum NotFoundReport {
    /// The line for a vault file that is not there: `no vault file at PATH …`.
    package static func missingFile(_ path: String) -> String {
        "no vault file at \(path) (nothing was saved yet: vault save creates it; --file or VAULT_FILE names another)"
    }

    /// When `store` is the encrypted file and there is no file yet, says so on stderr and
    /// ends the process with ``ExitStatus/notFound`` (`load`). Returns otherwise.
    package static func requireVaultFile(_ store: any SecureStore) {
        guard let file = store as? EncryptedFileStore, !file.fileExists else { return }
        Terminal.note(missingFile(file.path), priority: .error)
        Terminal.exit(ExitStatus.notFound)
    }

    /// When `store` is the encrypted file and there is no file yet, says so on stderr and
    /// returns true; the command goes on (`list` lists nothing and `remove` removes
    /// nothing, both with exit 0, as the exit-code table has it). False otherwise.
    @discardableResult
    package static func noteMissingFile(_ store: any SecureStore) -> Bool {
        guard let file = store as? EncryptedFileStore, !file.fileExists else { return false }
        Terminal.note(missingFile(file.path))
        return true
    }

    /// The not-found line for `key`, naming the other spellings of its server that hold an
    /// item of its account (`ServerSpelling.otherSpellings`).
    package static func message(_ key: CredentialKey, in store: any SecureStore) -> String {
        let base = VaultError.notFound(key).description
        let others = ServerSpelling.otherSpellings(of: key, in: store)
        guard let first = others.first else { return base }
        guard others.count > 1 else { return "\(base); there is one on \"\(first)\" (--server \(first))" }
        // Several: none is suggested over another (one may be another program's).
        return "\(base); there are items of that account on " + others.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    /// Says the not-found line on stderr and ends the process with ``ExitStatus/notFound``.
    package static func exit(_ key: CredentialKey, in store: any SecureStore) -> Never {
        Terminal.note(message(key, in: store), priority: .error)
        Terminal.exit(ExitStatus.notFound)
    }
}

/// What `remove` says when another spelling of the server holds an item of the account:
/// that item is left alone (it may be another program's), and how to name it.
package enum RemoveHint {
    /// Notes, on stderr, the other spellings of `key`'s server that hold an item of its
    /// account. Removes nothing; run after the remove, so a keyring is unlocked (or asked
    /// to be) once, by the remove itself.
    package static func noteOtherSpellings(of key: CredentialKey, in store: any SecureStore) {
        let others = ServerSpelling.otherSpellings(of: key, in: store)
        guard let first = others.first else { return }
        let names = others.map { "\"\($0)\"" }.joined(separator: ", ")
        Terminal.note(
            "an item for account \"\(key.account)\" on \(names) was left alone: only \"\(key.server)\" is removed "
                + "(to remove that one: --server \(first))")
    }
}
