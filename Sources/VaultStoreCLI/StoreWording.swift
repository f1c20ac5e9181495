// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

// The store's errors and decisions in the command's words: the libraries say what to do
// (``VaultError/Remedy``), the command says how, with its options and variables.

extension VaultError {
    /// One line for the person at the command: ``description``, with a remedy worded as
    /// the `vault` command's options and variables.
    package var worded: String {
        guard case .remedied(let error, let remedy) = self else { return description }
        switch remedy {
        case .givePassphrase:
            return "no passphrase: use --passphrase-file, VAULT_PASSPHRASE_FILE, systemd's LoadCredential=vault-passphrase "
                + "or VAULT_PASSPHRASE (there is no terminal to ask on)"
        case .giveNewPassphrase:
            return "no new passphrase: use --new-passphrase-file PATH or VAULT_NEW_PASSPHRASE_FILE, or run vault passwd on a terminal; "
                + "the vault is unchanged"
        case .enableKeyCache:
            return "the key cache is off (VAULT_KEY_CACHE_TTL=0 or --no-key-cache)"
        case .useAnotherBackend:
            return "\(error.worded) (use --backend file)"
        case .retryOrUseAnotherBackend:
            return "\(error.worded) (try again once it answers; if your items are in the vault file, use --backend file)"
        case .chooseBackend:
            return "\(error.worded) (choose: --backend secret-service or --backend file, or \(StoreVariables.backend))"
        case .createCollection(let how):
            return "\(error.worded) (\(how), or use --backend file)"
        case .authenticate:
            return "\(error.worded) (etcd authentication is on: give --etcd-user and --etcd-password-file)"
        case .authenticateByUser:
            return "\(error.worded) (the etcd user comes from --etcd-user)"
        case .useRealFile:
            return "\(error.worded); point VAULT_FILE at the real file"
        case .waitLonger:
            return "\(error.worded) (VAULT_LOCK_TIMEOUT)"
        case .givePEMFiles:
            return "cannot read the etcd TLS files (--etcd-cacert, --etcd-cert, --etcd-key): they must be PEM"
        }
    }
}

extension BackendDecision {
    /// ``reason``, with a forced backend's as the command forces it.
    package var wordedReason: String { forced ? "forced by --backend or \(StoreVariables.backend)" : reason }

    /// `KIND: REASON`, with ``wordedReason``.
    package var worded: String { "\(kind.rawValue): \(wordedReason)" }
}
