// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// Opens the store a `BackendDecision` names, with what the command line gives a backend:
/// the environment (with `--file`), `--passphrase-file`, the terminal prompt, and the
/// keyring prompt policy (`--prompt-timeout`, `--no-prompt`).
package enum StoreFactory {
    package static func open(_ decision: BackendDecision, options: StoreOptions) throws(VaultError) -> any SecureStore {
        try decision.open(context(options))
    }

    /// The file store, whatever backend is selected (`vault passwd`).
    package static func fileStore(options: StoreOptions) throws(VaultError) -> EncryptedFileStore {
        try EncryptedFileBackend.store(context(options))
    }

    private static func context(_ options: StoreOptions) -> BackendContext {
        BackendContext(
            environment: options.environment, passphraseFile: options.passphraseFile, prompter: TerminalPrompter(),
            prompts: options.promptPolicy)
    }
}
