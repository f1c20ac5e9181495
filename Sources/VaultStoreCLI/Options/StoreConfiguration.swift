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
/// offers (``StoreOptions``): what is not offered keeps its default. With the `VAULT_*` variables (``StoreVariables``) it makes the
/// typed configuration the libraries take (``context()``), and opens the store they select.
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
    /// Open with a key from the key cache only: no passphrase file, variable or credential,
    /// no terminal prompt, no keyring prompt (the agent after `vault lock`).
    package var keyCacheOnly = false
    /// The variables read: the process environment (a test gives its own). Never written
    /// back: options and variables become typed configuration instead.
    package var variables: [String: String]

    package init(variables: [String: String] = ProcessInfo.processInfo.environment) {
        self.variables = variables
    }

    /// The secret files these options name as `-` (standard input): `--passphrase-file`,
    /// `--etcd-password-file`, or their variables, by option name.
    package var secretFilesOnStandardInput: [String] {
        let files: [(String, String?)] = [
            ("--passphrase-file", passphraseFile ?? variables["VAULT_PASSPHRASE_FILE"]),
            ("--etcd-password-file", etcdPasswordFile ?? variables["VAULT_ETCD_PASSWORD_FILE"]),
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
        let display = [variables["DISPLAY"], variables["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
        let person = Terminal.stdinIsTerminal || isatty(STDERR_FILENO) == 1 || display
        guard person, !noPrompt else { return .never(because: "no terminal or display, or --no-prompt") }
        let timeout = promptTimeout.map { Duration.milliseconds(Int($0 * 1000)) } ?? PromptPolicy.defaultTimeout
        // The library says what is asked and for how long; the command says how to change that.
        return .wait(timeout: timeout, announce: { Terminal.note("\($0) (--prompt-timeout, --no-prompt)") })
    }

    /// The locations a protocol defines (the session bus, the XDG directories, systemd's
    /// credentials), from ``variables``.
    package var locations: StandardLocations { StandardLocations(environment: variables) }

    /// The vault file and its lock timeout: `--file`, `VAULT_FILE`, `VAULT_LOCK_TIMEOUT`.
    package var fileConfiguration: FileStoreConfiguration {
        FileStoreConfiguration(
            path: StoreVariables.vaultFile(option: file, variables, locations: locations),
            lockTimeout: StoreVariables.lockTimeout(variables))
    }

    /// What a backend is chosen and opened with, but the parts that can fail
    /// (``openingContext(addingCachedKeys:)`` adds them): the locations, the vault file,
    /// the passphrase sources with the terminal prompt, the keyring prompt policy, the
    /// lock directory (`VAULT_LOCK_DIR`), notices on stderr.
    package func context() -> BackendContext {
        let locations = locations
        let passphrase =
            keyCacheOnly
            ? PassphraseSource.standard(given: [])
            : PassphraseSource.standard(
                given: StoreVariables.givenPassphrases(file: passphraseFile, variables, locations: locations), prompter: TerminalPrompter())
        var context = BackendContext(
            locations: locations, file: fileConfiguration, passphrase: passphrase, kdf: StoreVariables.newFileKDF(variables),
            prompts: keyCacheOnly ? .never(because: "the agent holds no key after vault lock") : promptPolicy)
        // VAULT_LOCK_DIR (checked in openingContext): a keyring's item locks go there too.
        if let directory = variables["VAULT_LOCK_DIR"], directory.hasPrefix("/") { context.lockDirectory = directory }
        context.notice = { @Sendable message in Terminal.note(message) }
        return context
    }

    /// ``context()`` with the key cache (`VAULT_KEY_CACHE_TTL`, `--no-key-cache`; read-only
    /// without `addingCachedKeys`, with `--verbose` notices) and the configuration of the
    /// backend of `kind` when it lives in another module (``BackendConfigurations``).
    /// `.invalidInput` for a bad variable or option.
    package func openingContext(for kind: BackendKind, addingCachedKeys: Bool = true) throws(VaultError) -> BackendContext {
        try StoreVariables.checkLockTimeout(variables)
        if let directory = variables["VAULT_LOCK_DIR"], !directory.isEmpty, !directory.hasPrefix("/") {
            throw .invalidInput("VAULT_LOCK_DIR must be an absolute path")
        }
        var context = context()
        if !noKeyCache, let lifetime = try StoreVariables.keyCacheLifetime(variables) {
            let notice: (@Sendable (String) -> Void)? = verbose ? { @Sendable message in Terminal.note(message) } : nil
            context.keyCache = KeyCachePolicy(cache: KernelKeyring(), lifetime: lifetime, storesNewKeys: addingCachedKeys, notice: notice)
        }
        if let configuration = try BackendConfigurations.make(kind, from: self) { context.configurations[kind] = configuration }
        return context
    }

    /// The backend decision for these options: `--backend`, else `VAULT_BACKEND`, else `auto`.
    package func decision() throws(VaultError) -> BackendDecision {
        try StoreVariables.checkLockTimeout(variables)
        var requested = backend
        if requested == nil { requested = try StoreVariables.backend(variables) }
        return try BackendSelection.decide(requested: requested ?? .auto, context: context())
    }

    /// Opens the store these options select.
    package func openStore() throws(VaultError) -> any SecureStore {
        let decision = try decision()
        if verbose { Terminal.note("backend \(decision.worded)") }
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

extension StoreConfiguration {
    /// The store these options select, as the agent names it: a client asks the agent only
    /// when this equals the agent's own (the agent declines otherwise). It holds what
    /// decides which store opens: the backend asked for, the vault file, the session bus
    /// (which `auto` and `secret-service` use) and the etcd endpoints and prefix. Never a secret.
    package var agentStoreKey: String {
        let requested = backend?.rawValue ?? variables[StoreVariables.backend].flatMap { $0.isEmpty ? nil : $0 } ?? BackendKind.auto.rawValue
        let bus = [BackendKind.auto.rawValue, BackendKind.secretService.rawValue].contains(requested) ? locations.sessionBusAddress ?? "" : ""
        let etcd =
            requested == "etcd"
            ? [etcdEndpoints ?? variables["VAULT_ETCD_ENDPOINTS"] ?? "", etcdPrefix ?? variables["VAULT_ETCD_PREFIX"] ?? ""] : ["", ""]
        return ["backend=\(requested)", "file=\(canonicalVaultFile)", "bus=\(bus)", "etcd=\(etcd[0])", "prefix=\(etcd[1])"].joined(
            separator: "\n")
    }

    /// The store as the backend `kind` decided on names it, whatever the options spelled
    /// (`auto` or `file`, a bus variable `auto` did not use): what a `changed` or `rekeyed`
    /// names, so that an agent started as a systemd unit hears a shell's `vault logout`.
    package func decidedStoreKey(_ kind: BackendKind) -> String {
        switch kind {
        case .file: "backend=file\nfile=\(canonicalVaultFile)"
        case .secretService: "backend=secret-service\nbus=\(locations.sessionBusAddress ?? "")"
        case .etcd:
            "backend=etcd\netcd=\(etcdEndpoints ?? variables["VAULT_ETCD_ENDPOINTS"] ?? "")"
                + "\nprefix=\(etcdPrefix ?? variables["VAULT_ETCD_PREFIX"] ?? "")"
        case .auto: agentStoreKey
        }
    }

    /// ``decidedStoreKey(_:)`` of the backend these options choose now (`auto` asks the
    /// session bus, within its bound); the requested one's key when the choice fails.
    package var noticeStoreKey: String {
        guard let decided = try? decision() else { return agentStoreKey }
        return decidedStoreKey(decided.kind)
    }

    /// The vault file's path with its directory's links, `.`, `..` and doubled slashes
    /// resolved (from the working directory when relative): one name for one file.
    package var canonicalVaultFile: String {
        var path = fileConfiguration.path
        if !path.hasPrefix("/") { path = FileManager.default.currentDirectoryPath + "/" + path }
        guard let slash = path.lastIndex(of: "/") else { return path }
        let directory = String(path[..<slash])
        let name = String(path[path.index(after: slash)...])
        guard let real = realpath(directory.isEmpty ? "/" : directory, nil) else { return path }
        defer { free(real) }
        let resolved = String(cString: real)
        return (resolved == "/" ? "" : resolved) + "/" + name
    }
}
