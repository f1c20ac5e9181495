// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultAgentProtocol
import VaultStore

/// The file store of the current options, refusing another backend.
private func fileStoreOnly(
    _ store: some StoreConfigurable, command: String, decided: BackendDecision? = nil
) throws(VaultError) -> EncryptedFileStore {
    // One decision per command: each is a probe of the session bus (up to 10 s when it is silent).
    let decision: BackendDecision
    if let decided { decision = decided } else { decision = try store.decision() }
    if store.configuration.verbose { Terminal.note("backend \(decision.worded)") }
    guard decision.kind == .file else {
        throw .invalidInput("\(command) applies to the file backend only (the chosen backend is \(decision.kind.rawValue))")
    }
    return try StoreFactory.fileStore(options: store)
}

struct UnlockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Derive the vault file's key now and keep it in the kernel keyring (file backend).",
        usage: "vault unlock [--ttl <seconds>] [<options>]",
        discussion: """
            Later vault commands of the same user take the key from the kernel's user keyring \
            instead of asking for the passphrase and deriving it again, until it expires \
            (--ttl, else VAULT_KEY_CACHE_TTL, default 600 s) or `vault lock` removes it. The key \
            is readable by this user only and never touches the disk.
            """)

    @Option(help: ArgumentHelp("Keep the key this many seconds (1 to 604800).", valueName: "seconds"))
    var ttl: Int?
    @OptionGroup(title: "Store options") var backendChoice: BackendChoice
    @OptionGroup(title: "Store options") var passphraseOption: PassphraseFileOption
    var store: StoreOptions { StoreOptions(backendChoice, passphraseOption) }

    func validate() throws {
        try store.validate()
        if let ttl, !(1...KeyCachePolicy.maximumLifetime).contains(ttl) {
            throw ValidationError("--ttl must be a whole number of seconds from 1 to \(KeyCachePolicy.maximumLifetime)")
        }
    }

    func run() throws {
        try reportingErrors { () throws(VaultError) in
            let vault = try fileStoreOnly(store, command: "unlock")
            if store.verbose { KeyCacheReport.note(vault) }
            guard try vault.cacheKey(lifetime: ttl) else {
                throw .backendUnavailable("the key could not be kept: \(vault.keyCacheUnavailability ?? "the kernel refused it")")
            }
            Terminal.note("the key of \(vault.path) is kept for \(ttl ?? vault.keyCache?.lifetime ?? 0) s")
        }
    }
}

struct LockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "Remove the vault file's key from the kernel keyring now (file backend; etcd: every fleet's; --all: every vault key).",
        discussion: """
            The next command asks for the passphrase (or reads it from its usual sources) again. \
            With --backend etcd, every fleet's key kept for this user is removed, without \
            contacting etcd. \
            With --all, every key vault keeps for this user (every vault file's and every \
            fleet's) is removed, whatever the backend options say.
            """)

    @Flag(help: "Remove every key vault keeps in this user's kernel keyring (every vault file, every fleet).")
    var all = false
    @OptionGroup(title: "Store options") var backendChoice: BackendChoice
    var store: StoreOptions { StoreOptions(backendChoice) }

    func run() throws {
        // The agent drops its keys too, whatever happened to the kernel keyring's.
        defer { Self.lockAgent(store.configuration) }
        try reportingErrors { () throws(VaultError) in
            if all {
                let keyring = KernelKeyring()
                let removed = KeyCachePolicy.everyPrefix.reduce(0) { $0 + keyring.removeAll(prefix: $1) }
                if let why = keyring.unavailability { throw .backendUnavailable("the kernel keyring cannot be used here: \(why)") }
                Terminal.note("removed \(removed) kept key\(removed == 1 ? "" : "s")")
                return
            }
            let decision = try store.decision()
            if decision.kind == .etcd {
                // Every fleet's key, without asking etcd anything: the names hash the cluster,
                // prefix and parameters record, which only etcd knows, so all of them go.
                let keyring = KernelKeyring()
                let removed = keyring.removeAll(prefix: KeyCachePolicy.fleetKeyPrefix)
                if let why = keyring.unavailability { throw .backendUnavailable("the kernel keyring cannot be used here: \(why)") }
                Terminal.note("removed \(removed) kept fleet key\(removed == 1 ? "" : "s")")
                return
            }
            let vault = try fileStoreOnly(store, command: "lock", decided: decision)
            try vault.forgetCachedKey(in: vault.keyCache?.cache ?? KernelKeyring())
        }
    }

    /// Tells every `vault agent` of the user (``AgentNotice/socketPlaces(_:uid:)``) to drop
    /// every key it holds, and says so; nothing when none runs (with `-v`, one line per
    /// agent found). A lock is the user's order: it reaches the agents even with
    /// `VAULT_AGENT=off` (which only keeps commands from asking them).
    static func lockAgent(_ configuration: StoreConfiguration) {
        let told = AgentNotice.tell(.lock, what: "drop its keys", variables: configuration.variables, verbose: configuration.verbose)
        if !told.isEmpty { Terminal.note(told.count == 1 ? "the agent dropped its keys too" : "\(told.count) agents dropped their keys too") }
    }
}
