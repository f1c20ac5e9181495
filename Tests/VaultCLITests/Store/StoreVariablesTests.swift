// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultAuth
import VaultCLI
import VaultEtcd
import VaultStore
import VaultStoreCLI

/// True for `VaultError.invalidInput`, what a bad option or variable is (exit 2).
private func isInvalidInput(_ error: any Error) -> Bool {
    if case .invalidInput = error as? VaultError { true } else { false }
}

/// The command's `VAULT_*` variables become typed configuration here, and the libraries'
/// typed errors become the command's words; the libraries read none of the variables.
@Suite(.offThePool) struct StoreVariablesTests {
    @Test func vaultBackendForcesABackendAndRefusesAnUnknownName() throws {
        #expect(try StoreVariables.backend([:]) == nil)
        #expect(try StoreVariables.backend(["VAULT_BACKEND": ""]) == nil)
        #expect(try StoreVariables.backend(["VAULT_BACKEND": "file"]) == .file)
        #expect(throws: VaultError.invalidInput("VAULT_BACKEND=keychain is not one of auto, secret-service, file, etcd")) {
            try StoreVariables.backend(["VAULT_BACKEND": "keychain"])
        }
        let decision = try StoreConfiguration(variables: ["VAULT_BACKEND": "file", "HOME": "/home/u"]).decision()
        #expect(decision.kind == .file && decision.wordedReason == "forced by --backend or VAULT_BACKEND")
    }

    @Test("VAULT_KEY_CACHE_TTL: default 600, 0 is off, anything else but whole seconds up to a week is refused")
    func keyCacheLifetime() throws {
        #expect(try StoreVariables.keyCacheLifetime([:]) == 600)
        #expect(try StoreVariables.keyCacheLifetime(["VAULT_KEY_CACHE_TTL": "5"]) == 5)
        #expect(try StoreVariables.keyCacheLifetime(["VAULT_KEY_CACHE_TTL": "0"]) == nil)
        for bad in ["-1", "1.5", "x", "604801", "99999999999999999999"] {
            #expect { try StoreVariables.keyCacheLifetime(["VAULT_KEY_CACHE_TTL": bad]) } throws: { isInvalidInput($0) }
        }
        var options = StoreConfiguration(variables: ["VAULT_KEY_CACHE_TTL": "x", "HOME": "/home/u"])
        options.noKeyCache = true
        #expect(try options.openingContext(for: .file).keyCache == nil, "--no-key-cache: the variable is not read")
        options.noKeyCache = false
        options.variables["VAULT_KEY_CACHE_TTL"] = "30"
        #expect(try options.openingContext(for: .file).keyCache?.lifetime == 30)
        #expect(try options.openingContext(for: .file, addingCachedKeys: false).keyCache?.storesNewKeys == false)
    }

    @Test func theTestWorkFactorIsADebugBuildsHook() {
        #expect(StoreVariables.newFileKDF([:]) == .default)
        #expect(StoreVariables.newFileKDF(["VAULT_TEST_KDF_LOG2N": "3"]) == .default)
        #if DEBUG
            #expect(StoreVariables.newFileKDF(["VAULT_TEST_KDF_LOG2N": "10"]).log2N == 10)
        #else
            #expect(StoreVariables.newFileKDF(["VAULT_TEST_KDF_LOG2N": "10"]) == .default, "a release build ignores it")
        #endif
    }

    @Test func theVaultFileAndItsLockTimeout() {
        let home = ["HOME": "/home/u"]
        #expect(StoreConfiguration(variables: home).fileConfiguration.path == "/home/u/.local/share/vault/vault.db")
        #expect(StoreConfiguration(variables: home.merging(["XDG_DATA_HOME": "/data"]) { $1 }).fileConfiguration.path == "/data/vault/vault.db")
        #expect(
            StoreConfiguration(variables: home.merging(["XDG_DATA_HOME": "data"]) { $1 }).fileConfiguration.path
                == "/home/u/.local/share/vault/vault.db")
        var options = StoreConfiguration(variables: home.merging(["VAULT_FILE": "/v.db", "VAULT_LOCK_TIMEOUT": "0.5"]) { $1 })
        #expect(options.fileConfiguration == FileStoreConfiguration(path: "/v.db", lockTimeout: .milliseconds(500)))
        options.file = "/option.db"
        #expect(options.fileConfiguration.path == "/option.db", "--file wins over VAULT_FILE")
        for ignored in ["0", "3601", "nan", "x"] {
            #expect(StoreVariables.lockTimeout(["VAULT_LOCK_TIMEOUT": ignored]) == .seconds(10), "\(ignored)")
        }
    }

    @Test func passphrasesGivenInTheirOrder() {
        let locations = StandardLocations(credentialsDirectory: "/run/credentials/x")
        let variables = ["VAULT_PASSPHRASE_FILE": "/p", "VAULT_PASSPHRASE": "pw"]
        let given = StoreVariables.givenPassphrases(file: nil, variables, locations: locations)
        #expect(given.count == 3)
        if case .file(let path) = given[0] { #expect(path == "/p") } else { Issue.record("\(given)") }
        if case .systemdCredential(let directory) = given[1] { #expect(directory == "/run/credentials/x") } else { Issue.record("\(given)") }
        if case .value(let secret) = given[2] { #expect(secret == Secret("pw")) } else { Issue.record("\(given)") }
        let option = StoreVariables.givenPassphrases(file: "/option", variables, locations: StandardLocations())
        if case .file(let path) = option.first { #expect(path == "/option") } else { Issue.record("\(option)") }
        #expect(
            StoreVariables.givenPassphrases(file: "", variables, locations: StandardLocations()).count == 1, "an empty option hides the file variable"
        )
        #expect(StoreVariables.newPassphraseFile(option: nil, ["VAULT_NEW_PASSPHRASE_FILE": "/n"]) == "/n")
    }

    @Test func vaultLockDirMovesTheRefreshLocksOfAStoreWithoutADirectory() throws {
        let variables = ["VAULT_LOCK_DIR": "/run/vault-locks"]
        guard case .directory(let path) = try LockDirectorySettings.placement(for: InMemoryStore(), variables) else {
            Issue.record("VAULT_LOCK_DIR was not used")
            return
        }
        #expect(path == "/run/vault-locks")
        let file = EncryptedFileStore(path: "/srv/vault/vault.db", passphrase: .fixed(Secret("x")))
        #expect(try LockDirectorySettings.placement(for: file, variables).directory(for: file) == "/srv/vault", "beside the vault file")
        #expect(
            try LockDirectorySettings.placement(for: InMemoryStore(), ["VAULT_LOCK_DIR": ""]).directory(for: InMemoryStore())
                == RefreshLock.perUserDirectory(), "empty is unset")
        #expect {
            try LockDirectorySettings.placement(for: InMemoryStore(), ["VAULT_LOCK_DIR": "relative"])
        } throws: { isInvalidInput($0) }
    }

    @Test("a typo in VAULT_LOCK_TIMEOUT or VAULT_REAUTH_COOLDOWN is refused, never silently the default or off")
    func lockTimeoutAndCoolDownAreChecked() throws {
        for bad in ["abc", "nan", "inf", "-1", "0", "3601", "1e300"] {
            #expect { try StoreVariables.checkLockTimeout(["VAULT_LOCK_TIMEOUT": bad]) } throws: { isInvalidInput($0) }
        }
        try StoreVariables.checkLockTimeout(["VAULT_LOCK_TIMEOUT": "0.5"])
        try StoreVariables.checkLockTimeout(["VAULT_LOCK_TIMEOUT": ""])
        #expect(StoreVariables.lockTimeout(["VAULT_LOCK_TIMEOUT": "0.5"]) == .milliseconds(500))
        for bad in ["abc", "nan", "inf", "-1", "1e-400x", "604801"] {
            #expect { try ReauthenticationSettings.coolDown(["VAULT_REAUTH_COOLDOWN": bad]) } throws: { isInvalidInput($0) }
        }
        #expect(try ReauthenticationSettings.coolDown([:]) == 300)
        #expect(try ReauthenticationSettings.coolDown(["VAULT_REAUTH_COOLDOWN": "0"]) == 0)
        #expect(try ReauthenticationSettings.coolDown(["VAULT_REAUTH_COOLDOWN": "30"]) == 30)
    }

    @Test func remediesAreWordedWithTheOptions() {
        #expect(
            VaultError.invalidInput("x").with(.givePassphrase).worded
                == "no passphrase: use --passphrase-file, VAULT_PASSPHRASE_FILE, systemd's LoadCredential=vault-passphrase "
                + "or VAULT_PASSPHRASE (there is no terminal to ask on)")
        #expect(VaultError.invalidInput("x").with(.enableKeyCache).worded == "the key cache is off (VAULT_KEY_CACHE_TTL=0 or --no-key-cache)")
        #expect(
            VaultError.backendUnavailable("Secret Service: no bus").with(.useAnotherBackend).worded
                == "backend unavailable: Secret Service: no bus (use --backend file)")
        #expect(ExitStatus.of(VaultError.invalidInput("x").with(.givePassphrase)) == 2)
        #expect(ExitStatus.of(VaultError.backendUnavailable("x").with(.useAnotherBackend)) == 4)
        #expect(!VaultError.invalidInput("x").with(.givePassphrase).description.contains("--"), "the library names no option")
    }
}

/// The etcd options and variables, checked and worded by the command.
@Suite(.offThePool) struct EtcdSettingsTests {
    func parse(_ endpoints: String, _ extra: [String: String] = [:]) throws(VaultError) -> EtcdConfiguration {
        try EtcdSettings.configuration(StoreConfiguration(variables: ["VAULT_ETCD_ENDPOINTS": endpoints].merging(extra) { $1 }))
    }

    @Test func plainHTTPIsForThisMachineUnlessAllowedAndTLSFilesNeedHTTPS() throws {
        for loopback in ["http://127.0.0.1:2379", "http://127.8.9.10:2379", "http://localhost:2379", "http://LOCALHOST:2379", "http://[::1]:2379"] {
            #expect(throws: Never.self, "\(loopback)") { try parse(loopback) }
        }
        for remote in [
            "http://10.0.0.11:2379", "http://0.0.0.0:2379", "http://127.0.0.1.example.com:2379", "http://localhost.example.com:2379",
            "http://[fe80::1]:2379", "http://[::ffff:10.0.0.1]:2379", "https://127.0.0.1:2379,http://etcd:2379",
        ] {
            #expect("\(remote)") { try parse(remote) } throws: { isInvalidInput($0) }
            let allowed = try parse(remote, ["VAULT_ETCD_INSECURE_HTTP": "1"])
            #expect(allowed.insecureHTTP)
            var options = StoreConfiguration(variables: [:])
            options.etcdEndpoints = remote
            options.etcdInsecureHttp = true
            #expect(try EtcdSettings.configuration(options).insecureHTTP, "--etcd-insecure-http")
        }
        #expect { try parse("http://10.0.0.11:2379", ["VAULT_ETCD_INSECURE_HTTP": "true"]) } throws: { isInvalidInput($0) }
        #expect(try parse("https://10.0.0.11:2379").usesTLS)
        #expect(try !parse("http://127.0.0.1:2379").usesTLS)
        for tls in [["VAULT_ETCD_CACERT": "/ca.pem"], ["VAULT_ETCD_CERT": "/c.pem", "VAULT_ETCD_KEY": "/k.pem"]] {
            #expect { try parse("http://127.0.0.1:2379", tls) } throws: { isInvalidInput($0) }
            #expect { try parse("https://127.0.0.1:2379,http://127.0.0.1:2380", tls) } throws: { isInvalidInput($0) }
            #expect(throws: Never.self) { try parse("https://127.0.0.1:2379", tls) }
        }
    }

    @Test func badConfigurationsAreOneLineEach() {
        let cases: [[String: String]] = [
            [:], ["VAULT_ETCD_ENDPOINTS": "ftp://h:1"], ["VAULT_ETCD_ENDPOINTS": "http://h:1/v3"],
            ["VAULT_ETCD_ENDPOINTS": "http://u:p@h:1"], ["VAULT_ETCD_ENDPOINTS": "http://h:1", "VAULT_ETCD_PREFIX": "vault"],
            ["VAULT_ETCD_ENDPOINTS": "http://h:1", "VAULT_ETCD_CERT": "/c"], ["VAULT_ETCD_ENDPOINTS": "http://h:1", "VAULT_ETCD_USER": "u"],
            ["VAULT_ETCD_ENDPOINTS": "http://h:1", "VAULT_ETCD_TIMEOUT": "nan"], ["VAULT_ETCD_ENDPOINTS": "http://h:1,"],
            ["VAULT_ETCD_ENDPOINTS": "http://127.0.0.1:65536"], ["VAULT_ETCD_ENDPOINTS": "http://127.0.0.1:99999999999999999999"],
            ["VAULT_ETCD_ENDPOINTS": "http://127.0.0.1:0"], ["VAULT_ETCD_ENDPOINTS": "http://127.0.0.1:"],
            ["VAULT_ETCD_ENDPOINTS": "http://" + String(repeating: "h", count: 100_000) + ":1"],
            ["VAULT_ETCD_ENDPOINTS": "http://h:1", "VAULT_ETCD_PREFIX": "/bidi\u{202E}/"],
            ["VAULT_ETCD_ENDPOINTS": "http://h:1", "VAULT_ETCD_PREFIX": "/nel\u{85}/"],
            ["VAULT_ETCD_ENDPOINTS": "http://127.0.0.1:1", "VAULT_ETCD_LOCK_TTL": "1"],
        ]
        for variables in cases {
            do throws(VaultError) {
                _ = try EtcdSettings.configuration(StoreConfiguration(variables: variables))
                Issue.record("accepted \(variables)")
            } catch {
                guard case .invalidInput(let why) = error else {
                    Issue.record("\(variables): \(error)")
                    continue
                }
                #expect(!why.contains("\n") && !why.contains("u:p") && why.count < 400, "\(why.prefix(200))")
            }
        }
    }

    @Test func theMessagesNameTheOptions() {
        #expect(throws: VaultError.invalidInput("the etcd backend needs --etcd-endpoints URL,URL,... (or VAULT_ETCD_ENDPOINTS)")) {
            try parse("")
        }
        #expect(
            throws: VaultError.invalidInput(
                "--etcd-endpoints: an endpoint with user info (use --etcd-user and --etcd-password-file) "
                    + "is not an etcd client URL (http:// or https://host:port, no path)")
        ) { try parse("http://u:p@h:1") }
        #expect(throws: VaultError.invalidInput("--etcd-endpoints: \"http://h:0\" has no usable port (1 to 65535)")) { try parse("http://h:0") }
        #expect(throws: VaultError.invalidInput("VAULT_ETCD_TIMEOUT must be a number of seconds from 0.5 to 600.0")) {
            try parse("http://127.0.0.1:1", ["VAULT_ETCD_TIMEOUT": "nan"])
        }
        #expect(throws: VaultError.invalidInput("--etcd-user and --etcd-password-file go together (the password is never an argument)")) {
            try parse("http://127.0.0.1:1", ["VAULT_ETCD_USER": "u"])
        }
    }
}
