// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultStore

extension BackendKind: ExpressibleByArgument {}

// The store options in the groups `--help` shows (`Store options`, `Keyring options`,
// `etcd options`). Each command takes the groups it reads: ``StoreOptions`` (every one) for
// the commands that open any backend, ``FileStoreOptions`` and ``BackendChoiceOptions``
// for those that only touch the vault file or only choose.

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

/// Every store option: for the commands that open any backend (save, load, remove, list,
/// and the sign-in commands).
package struct StoreOptions: ParsableArguments, StoreConfigurable {
    package init() {}

    @OptionGroup(title: "Store options") var choice: BackendChoice
    @OptionGroup(title: "Store options") var passphrase: PassphraseFileOption
    @OptionGroup(title: "Store options") var keyCache: KeyCacheOption
    @OptionGroup(title: "Keyring options") var keyring: KeyringPromptOptions
    @OptionGroup(title: "etcd options") var etcd: EtcdOptions

    package var configuration: StoreConfiguration {
        var configuration = StoreConfiguration()
        choice.apply(to: &configuration)
        configuration.passphraseFile = passphrase.passphraseFile
        configuration.noKeyCache = keyCache.noKeyCache
        keyring.apply(to: &configuration)
        etcd.apply(to: &configuration)
        return configuration
    }

    package func validate() throws {
        do throws(VaultError) { try configuration.checkStandardInput() } catch { throw ValidationError(error.worded) }
    }
}

/// The options of the commands that use the vault file only (passwd, unlock): the backend
/// (to refuse another), the file and its passphrase.
package struct FileStoreOptions: ParsableArguments, StoreConfigurable {
    package init() {}

    @OptionGroup(title: "Store options") var choice: BackendChoice
    @OptionGroup(title: "Store options") var passphrase: PassphraseFileOption

    package var configuration: StoreConfiguration {
        var configuration = StoreConfiguration()
        choice.apply(to: &configuration)
        configuration.passphraseFile = passphrase.passphraseFile
        return configuration
    }

    package func validate() throws {
        do throws(VaultError) { try configuration.checkStandardInput() } catch { throw ValidationError(error.worded) }
    }
}

/// The options of the commands that only choose a backend (backend, lock).
package struct BackendChoiceOptions: ParsableArguments, StoreConfigurable {
    package init() {}

    @OptionGroup(title: "Store options") var choice: BackendChoice

    package var configuration: StoreConfiguration {
        var configuration = StoreConfiguration()
        choice.apply(to: &configuration)
        return configuration
    }
}
