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

    @Option(help: "Where to keep items: auto, secret-service, file or etcd (env: VAULT_BACKEND; default auto, which never picks etcd).")
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

    @Option(
        help: ArgumentHelp(
            "etcd backend: the members' client URLs, https:// (http:// only to this machine, unless --etcd-insecure-http) "
                + "(env: VAULT_ETCD_ENDPOINTS).", valueName: "url,url,..."))
    package var etcdEndpoints: String?

    @Flag(
        help: ArgumentHelp(
            "etcd backend: allow http:// endpoints on other machines, so the etcd password, its token and the sealed items "
                + "cross the network in clear text (env: VAULT_ETCD_INSECURE_HTTP=1)."))
    package var etcdInsecureHttp = false

    @Option(help: ArgumentHelp("etcd backend: the key prefix vault owns (env: VAULT_ETCD_PREFIX; default /vault/).", valueName: "prefix"))
    package var etcdPrefix: String?

    @Option(
        help: ArgumentHelp(
            "etcd backend: PEM file of the CAs of the members' certificates, for https:// endpoints (env: VAULT_ETCD_CACERT).",
            valueName: "path"))
    package var etcdCacert: String?

    @Option(help: ArgumentHelp("etcd backend: the client certificate, PEM, for https:// endpoints (env: VAULT_ETCD_CERT).", valueName: "path"))
    package var etcdCert: String?

    @Option(help: ArgumentHelp("etcd backend: the client certificate's private key, PEM (env: VAULT_ETCD_KEY).", valueName: "path"))
    package var etcdKey: String?

    @Option(
        help: ArgumentHelp("etcd backend: the etcd user (env: VAULT_ETCD_USER); its password comes from --etcd-password-file.", valueName: "name"))
    package var etcdUser: String?

    @Option(help: ArgumentHelp("etcd backend: the file holding the etcd user's password (env: VAULT_ETCD_PASSWORD_FILE).", valueName: "path"))
    package var etcdPasswordFile: String?

    package func validate() throws {
        if let promptTimeout, !(promptTimeout.isFinite && promptTimeout > 0 && promptTimeout <= 3600) {
            throw ValidationError("--prompt-timeout must be a number of seconds, more than 0 and at most 3600")
        }
        do throws(VaultError) { try checkStandardInput() } catch { throw ValidationError(error.description) }
    }

    /// The secret files these options name as `-` (standard input): `--passphrase-file`,
    /// `--etcd-password-file`, or their variables, by option name.
    package var secretFilesOnStandardInput: [String] {
        let environment = ProcessInfo.processInfo.environment
        let files: [(String, String?)] = [
            ("--passphrase-file", passphraseFile ?? environment["VAULT_PASSPHRASE_FILE"]),
            ("--etcd-password-file", etcdPasswordFile ?? environment["VAULT_ETCD_PASSWORD_FILE"]),
        ]
        return files.compactMap { $0.1 == PassphraseSource.standardInputName ? $0.0 : nil }
    }

    /// Refuses (`.invalidInput`, exit 2) a command line on which standard input would have to
    /// carry two things: the secret files named `-` here, and `others`, what the command
    /// itself reads from it (`save`'s secret, `login`'s password, a request body).
    package func checkStandardInput(_ others: [String] = []) throws(VaultError) {
        let readers = secretFilesOnStandardInput + others
        guard readers.count > 1 else { return }
        throw .invalidInput(
            "\(readers.joined(separator: " and ")) cannot all come from standard input; give \(readers[0]) a file instead of -")
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

    /// The process environment, with `--file`, `--no-key-cache` and the `--etcd-…` options applied.
    package var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        if let file { environment["VAULT_FILE"] = file }
        if noKeyCache { environment["VAULT_KEY_CACHE_TTL"] = "0" }
        let etcd: [(String?, String)] = [
            (etcdEndpoints, "VAULT_ETCD_ENDPOINTS"), (etcdPrefix, "VAULT_ETCD_PREFIX"), (etcdCacert, "VAULT_ETCD_CACERT"),
            (etcdCert, "VAULT_ETCD_CERT"), (etcdKey, "VAULT_ETCD_KEY"), (etcdUser, "VAULT_ETCD_USER"),
            (etcdPasswordFile, "VAULT_ETCD_PASSWORD_FILE"),
        ]
        for (value, variable) in etcd { if let value { environment[variable] = value } }
        if etcdInsecureHttp { environment["VAULT_ETCD_INSECURE_HTTP"] = "1" }
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
