// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import FoundationEssentials
import VaultStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What the store options of a command line say, whichever groups of them the command
/// offers (``StoreOptions``, ``FileStoreOptions``, ``BackendChoiceOptions``): what is not
/// offered keeps its default. Opens the store they select.
package struct StoreConfiguration: Sendable {
    package var backend: BackendKind?
    package var file: String?
    package var passphraseFile: String?
    package var verbose = false
    package var noKeyCache = false
    package var promptTimeout: Double?
    package var noPrompt = false
    package var etcdEndpoints: String?
    package var etcdInsecureHttp = false
    package var etcdPrefix: String?
    package var etcdCacert: String?
    package var etcdCert: String?
    package var etcdKey: String?
    package var etcdUser: String?
    package var etcdPasswordFile: String?

    package init() {}

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

/// A command's store options, read as one ``StoreConfiguration``; the configuration's
/// members are the options' too (`store.verbose`, `store.openStore()`).
@dynamicMemberLookup
package protocol StoreConfigurable {
    /// What the options given say.
    var configuration: StoreConfiguration { get }
}

extension StoreConfigurable {
    package subscript<T>(dynamicMember path: KeyPath<StoreConfiguration, T>) -> T { configuration[keyPath: path] }
    package func checkStandardInput(_ others: [String] = []) throws(VaultError) { try configuration.checkStandardInput(others) }
    package func decision() throws(VaultError) -> BackendDecision { try configuration.decision() }
    package func openStore() throws(VaultError) -> any SecureStore { try configuration.openStore() }
}

extension StoreConfiguration: StoreConfigurable {
    package var configuration: StoreConfiguration { self }
}
