// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// Opens the store a `BackendDecision` names, with what the command line gives a backend:
/// the environment (with `--file`), `--passphrase-file`, the terminal prompt, and the
/// keyring prompt policy (`--prompt-timeout`, `--no-prompt`).
package enum StoreFactory {
    /// Opens the store; with `addingCachedKeys` false it uses a key kept in the key cache
    /// but adds none (`vault exec`).
    package static func open(
        _ decision: BackendDecision, options: some StoreConfigurable, addingCachedKeys: Bool = true
    ) throws(VaultError) -> any SecureStore {
        var context = context(options.configuration)
        context.storesNewCachedKeys = addingCachedKeys
        return try decision.open(context)
    }

    /// The file store, whatever backend is selected (`vault passwd`).
    package static func fileStore(options: some StoreConfigurable) throws(VaultError) -> EncryptedFileStore {
        try EncryptedFileBackend.store(context(options.configuration))
    }

    private static func context(_ options: StoreConfiguration) -> BackendContext {
        let notice: (@Sendable (String) -> Void)? = options.verbose ? { @Sendable message in Terminal.note(message) } : nil
        return BackendContext(
            environment: options.environment, passphraseFile: options.passphraseFile, prompter: TerminalPrompter(),
            prompts: options.promptPolicy, notice: notice)
    }
}
