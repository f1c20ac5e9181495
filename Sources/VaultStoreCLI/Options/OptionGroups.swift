// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultStore

extension BackendKind: ExpressibleByArgument {}

// The store options in the groups `--help` shows (`Store options`, `Keyring options`,
// `etcd options`). Each command declares the groups it reads and makes them one
// ``StoreOptions``: every group for the commands that open any backend, fewer for those
// that only touch the vault file or only choose.

/// `--backend`, `--file` and `-v`: which store.
package struct BackendChoice: ParsableArguments {
    package init() {}

    @Option(help: "Where to keep items: auto, secret-service, file or etcd (env: VAULT_BACKEND; default auto, which never picks etcd).")
    var backend: BackendKind?

    @Option(
        help: ArgumentHelp(
            "The encrypted vault file (env: VAULT_FILE; default ${XDG_DATA_HOME:-~/.local/share}/vault/vault.db).",
            valueName: "path"))
    var file: String?

    @Flag(
        name: .shortAndLong,
        help: ArgumentHelp(
            "Say on stderr which backend was chosen and why; with a token (token, request, exec), also whether the stored "
                + "access token was used, refreshed, or the account logged in again."))
    var verbose = false

    func apply(to configuration: inout StoreConfiguration) {
        configuration.backend = backend
        configuration.file = file
        configuration.verbose = verbose
    }
}

/// `--passphrase-file`: how the vault file (or fleet) is opened.
package struct PassphraseFileOption: ParsableArguments {
    package init() {}

    @Option(
        help: ArgumentHelp(
            "Read the vault passphrase from this file (env: VAULT_PASSPHRASE_FILE; also "
                + "$CREDENTIALS_DIRECTORY/vault-passphrase, VAULT_PASSPHRASE, else the terminal).",
            valueName: "path"))
    var passphraseFile: String?
}

/// `--no-key-cache`.
package struct KeyCacheOption: ParsableArguments {
    package init() {}

    @Flag(help: "File backend: neither use nor fill the key cache in the kernel keyring (as VAULT_KEY_CACHE_TTL=0).")
    var noKeyCache = false
}

/// `--prompt-timeout` and `--no-prompt`: the Secret Service's prompts.
package struct KeyringPromptOptions: ParsableArguments {
    package init() {}

    @Option(
        help: ArgumentHelp(
            "How long to wait for a person to answer a keyring prompt (unlock, allow access, confirm a deletion); default 60.",
            valueName: "seconds"))
    var promptTimeout: Double?

    @Flag(help: "Never show a keyring prompt: fail at once (exit 3), as when no terminal or display is there.")
    var noPrompt = false

    package func validate() throws {
        if let promptTimeout, !(promptTimeout.isFinite && promptTimeout > 0 && promptTimeout <= 3600) {
            throw ValidationError("--prompt-timeout must be a number of seconds, more than 0 and at most 3600")
        }
    }

    func apply(to configuration: inout StoreConfiguration) {
        configuration.promptTimeout = promptTimeout
        configuration.noPrompt = noPrompt
    }
}

/// The etcd backend's options.
package struct EtcdOptions: ParsableArguments {
    package init() {}

    @Option(
        help: ArgumentHelp(
            "The members' client URLs, https:// (http:// only to this machine, unless --etcd-insecure-http) "
                + "(env: VAULT_ETCD_ENDPOINTS).", valueName: "url,url,..."))
    var etcdEndpoints: String?

    @Flag(
        help: ArgumentHelp(
            "Allow http:// endpoints on other machines, so the etcd password, its token and the sealed items "
                + "cross the network in clear text (env: VAULT_ETCD_INSECURE_HTTP=1)."))
    var etcdInsecureHttp = false

    @Option(help: ArgumentHelp("The key prefix vault owns (env: VAULT_ETCD_PREFIX; default /vault/).", valueName: "prefix"))
    var etcdPrefix: String?

    @Option(
        help: ArgumentHelp("PEM file of the CAs of the members' certificates, for https:// endpoints (env: VAULT_ETCD_CACERT).", valueName: "path"))
    var etcdCacert: String?

    @Option(help: ArgumentHelp("The client certificate, PEM, for https:// endpoints (env: VAULT_ETCD_CERT).", valueName: "path"))
    var etcdCert: String?

    @Option(help: ArgumentHelp("The client certificate's private key, PEM (env: VAULT_ETCD_KEY).", valueName: "path"))
    var etcdKey: String?

    @Option(help: ArgumentHelp("The etcd user (env: VAULT_ETCD_USER); its password comes from --etcd-password-file.", valueName: "name"))
    var etcdUser: String?

    @Option(help: ArgumentHelp("The file holding the etcd user's password (env: VAULT_ETCD_PASSWORD_FILE).", valueName: "path"))
    var etcdPasswordFile: String?

    func apply(to configuration: inout StoreConfiguration) {
        configuration.etcdEndpoints = etcdEndpoints
        configuration.etcdInsecureHttp = etcdInsecureHttp
        configuration.etcdPrefix = etcdPrefix
        configuration.etcdCacert = etcdCacert
        configuration.etcdCert = etcdCert
        configuration.etcdKey = etcdKey
        configuration.etcdUser = etcdUser
        configuration.etcdPasswordFile = etcdPasswordFile
    }
}

/// A command's store options, from the option groups it declares: all five for the commands
/// that open any backend (save, load, remove, list, the sign-in commands), the backend
/// choice and passphrase for those that touch the vault file only (passwd, unlock), the
/// backend choice alone for those that only choose (backend, lock).
///
/// Not an option group itself: each command declares the groups and makes them one with
/// `StoreOptions(...)`, and calls ``validate()``. swift-argument-parser's debug builds
/// check each nested group once per level around it, on every parse: one more level made
/// each debug `vault` process spend about 0.2 s of CPU in those checks (`vault list`:
/// 0.25 s against 0.07 s), most of the test suite's CPU. Release builds do not check.
package struct StoreOptions: StoreConfigurable {
    var choice: BackendChoice
    var passphrase: PassphraseFileOption?
    var keyCache: KeyCacheOption?
    var keyring: KeyringPromptOptions?
    var etcd: EtcdOptions?

    /// The options of the groups given; a group not given keeps its defaults.
    package init(
        _ choice: BackendChoice, _ passphrase: PassphraseFileOption? = nil, _ keyCache: KeyCacheOption? = nil,
        _ keyring: KeyringPromptOptions? = nil, _ etcd: EtcdOptions? = nil
    ) {
        self.choice = choice
        self.passphrase = passphrase
        self.keyCache = keyCache
        self.keyring = keyring
        self.etcd = etcd
    }

    package var configuration: StoreConfiguration {
        var configuration = StoreConfiguration()
        choice.apply(to: &configuration)
        if let passphrase { configuration.passphraseFile = passphrase.passphraseFile }
        if let keyCache { configuration.noKeyCache = keyCache.noKeyCache }
        keyring?.apply(to: &configuration)
        etcd?.apply(to: &configuration)
        return configuration
    }

    /// What the groups checked when they were one: no two readers of standard input. A
    /// command that reads a store's passphrase file calls it from its `validate()`.
    package func validate() throws {
        do throws(VaultError) { try configuration.checkStandardInput() } catch { throw ValidationError(error.worded) }
    }
}
