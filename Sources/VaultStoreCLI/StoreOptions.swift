// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import FoundationEssentials
import VaultStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension BackendKind: ExpressibleByArgument {}

/// Options every store command takes.
package struct StoreOptions: ParsableArguments {
    package init() {}

    @Option(help: "Where to keep items: auto, secret-service or file (env: VAULT_BACKEND; default auto).")
    package var backend: BackendKind?

    @Option(
        help: ArgumentHelp(
            "The encrypted vault file (env: VAULT_FILE; default ${XDG_DATA_HOME:-~/.local/share}/vault/vault.db).",
            valueName: "path"))
    package var file: String?

    @Option(
        help: ArgumentHelp(
            "Read the vault passphrase from this file (env: VAULT_PASSPHRASE_FILE; also "
                + "$CREDENTIALS_DIRECTORY/vault-passphrase, VAULT_PASSPHRASE, else the terminal).",
            valueName: "path"))
    package var passphraseFile: String?

    @Flag(name: .shortAndLong, help: "Say on stderr which backend was chosen and why.")
    package var verbose = false

    @Option(
        help: ArgumentHelp(
            "How long to wait for a person to answer a keyring prompt (unlock, allow access, confirm a deletion); default 60.",
            valueName: "seconds"))
    package var promptTimeout: Double?

    @Flag(help: "Never show a keyring prompt: fail at once (exit 3), as when no terminal or display is there.")
    package var noPrompt = false

    @Flag(help: "File backend: neither use nor fill the key cache in the kernel keyring (as VAULT_KEY_CACHE_TTL=0).")
    package var noKeyCache = false

    package func validate() throws {
        if let promptTimeout, !(promptTimeout.isFinite && promptTimeout > 0 && promptTimeout <= 3600) {
            throw ValidationError("--prompt-timeout must be a number of seconds, more than 0 and at most 3600")
        }
    }

    /// Keyring prompts are shown only with a person present: a terminal on stdin or
    /// stderr, or a display (`DISPLAY`, `WAYLAND_DISPLAY`), and not `--no-prompt`.
    package var promptPolicy: PromptPolicy {
        let environment = ProcessInfo.processInfo.environment
        let display = [environment["DISPLAY"], environment["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
        let person = Terminal.stdinIsTerminal || isatty(STDERR_FILENO) == 1 || display
        guard person, !noPrompt else { return .never }
        let timeout = promptTimeout.map { Duration.milliseconds(Int($0 * 1000)) } ?? PromptPolicy.defaultTimeout
        return .wait(timeout: timeout, announce: { Terminal.note($0) })
    }

    /// The process environment, with `--file` and `--no-key-cache` applied.
    package var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        if let file { environment["VAULT_FILE"] = file }
        if noKeyCache { environment["VAULT_KEY_CACHE_TTL"] = "0" }
        return environment
    }

    /// The backend decision for these options.
    package func decision() throws(VaultError) -> BackendDecision {
        try BackendSelection.decide(requested: backend, environment: environment)
    }

    /// Opens the store these options select.
    package func openStore() throws(VaultError) -> any SecureStore {
        let decision = try decision()
        if verbose { Terminal.note("backend \(decision)") }
        let store = try StoreFactory.open(decision, options: self)
        if verbose, let file = store as? EncryptedFileStore { KeyCacheReport.note(file) }
        return store
    }
}
