// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// The store's `VAULT_*` variables, and the typed values the command makes of them: the
/// libraries read none of them (README, "Environment variables").
package enum StoreVariables {
    /// Forces a backend (`auto`, `secret-service`, `file`, `etcd`), as `--backend` does.
    package static let backend = "VAULT_BACKEND"

    /// The backend `VAULT_BACKEND` asks for, or nil when it is unset or empty;
    /// `.invalidInput` for a name that is not a backend's.
    package static func backend(_ variables: [String: String]) throws(VaultError) -> BackendKind? {
        guard let raw = variables[backend], !raw.isEmpty else { return nil }
        guard let kind = BackendKind(rawValue: raw) else {
            throw .invalidInput("\(backend)=\(raw) is not one of auto, secret-service, file, etcd")
        }
        return kind
    }

    /// The vault file: `--file`, else `VAULT_FILE`, else the XDG default
    /// (``StandardLocations/defaultVaultFile``). An empty `VAULT_FILE` is unset.
    package static func vaultFile(option: String?, _ variables: [String: String], locations: StandardLocations) -> String {
        if let option { return option }
        if let file = variables["VAULT_FILE"], !file.isEmpty { return file }
        return locations.defaultVaultFile
    }

    /// `VAULT_LOCK_TIMEOUT` (seconds, 0.1 to 3600; default 10): how long a write waits for
    /// another process's lock on the vault file. Unset or empty is the default; any other
    /// value out of range is refused by ``checkLockTimeout(_:)`` before a store opens.
    package static func lockTimeout(_ variables: [String: String]) -> Duration {
        (try? parsedLockTimeout(variables)) ?? FileStoreConfiguration.defaultLockTimeout
    }

    /// `.invalidInput` when `VAULT_LOCK_TIMEOUT` is set to something other than seconds from
    /// 0.1 to 3600 (a typo must not wait the default without a word).
    package static func checkLockTimeout(_ variables: [String: String]) throws(VaultError) {
        _ = try parsedLockTimeout(variables)
    }

    /// The timeout `VAULT_LOCK_TIMEOUT` gives; nil when unset or empty.
    private static func parsedLockTimeout(_ variables: [String: String]) throws(VaultError) -> Duration? {
        guard let raw = variables["VAULT_LOCK_TIMEOUT"], !raw.isEmpty else { return nil }
        guard let seconds = Double(raw), seconds.isFinite, (0.1...3600).contains(seconds) else {
            throw .invalidInput("VAULT_LOCK_TIMEOUT must be a number of seconds from 0.1 to 3600")
        }
        return .milliseconds(Int(seconds * 1000))
    }

    /// The key cache's lifetime `VAULT_KEY_CACHE_TTL` asks for (seconds, default 600), or nil
    /// when it is 0 (off). A value that is not a whole number from 0 to a week is `.invalidInput`.
    package static func keyCacheLifetime(_ variables: [String: String]) throws(VaultError) -> Int? {
        var lifetime = KeyCachePolicy.defaultLifetime
        if let text = variables["VAULT_KEY_CACHE_TTL"], !text.isEmpty {
            guard let value = Int(text), (0...KeyCachePolicy.maximumLifetime).contains(value) else {
                throw .invalidInput("VAULT_KEY_CACHE_TTL must be a whole number of seconds from 0 (off) to \(KeyCachePolicy.maximumLifetime)")
            }
            lifetime = value
        }
        return lifetime == 0 ? nil : lifetime
    }

    /// Lowers the work factor of *newly written* vault files and fleets, for tests only:
    /// `VAULT_TEST_KDF_LOG2N=10`. Debug builds only; a release build ignores it.
    package static let testKDF = "VAULT_TEST_KDF_LOG2N"

    /// The work factor of new vault files and fleets: the default, or in a debug build
    /// ``testKDF`` when it is a value from ``KDFParameters/minimumLog2N`` to the default's.
    /// A release build never weakens it, whatever the environment says.
    package static func newFileKDF(_ variables: [String: String]) -> KDFParameters {
        #if DEBUG
            guard let raw = variables[testKDF], let log2N = UInt8(raw),
                (KDFParameters.minimumLog2N...KDFParameters.default.log2N).contains(log2N)
            else { return .default }
            return KDFParameters(log2N: log2N)
        #else
            return .default
        #endif
    }

    /// Where a passphrase is given without a prompt, in order: `--passphrase-file` (else
    /// `VAULT_PASSPHRASE_FILE`), `$CREDENTIALS_DIRECTORY/vault-passphrase` (systemd's
    /// `LoadCredential=vault-passphrase`), `VAULT_PASSPHRASE`. Empty values are unset.
    package static func givenPassphrases(
        file option: String?, _ variables: [String: String], locations: StandardLocations
    ) -> [PassphraseSource.Given] {
        var given: [PassphraseSource.Given] = []
        if let path = option ?? variables["VAULT_PASSPHRASE_FILE"], !path.isEmpty { given.append(.file(path)) }
        if let directory = locations.credentialsDirectory { given.append(.systemdCredential(directory: directory)) }
        if let value = variables["VAULT_PASSPHRASE"], !value.isEmpty { given.append(.value(Secret(value))) }
        return given
    }

    /// The new passphrase's file of `vault passwd`: `--new-passphrase-file`, else `VAULT_NEW_PASSPHRASE_FILE`.
    package static func newPassphraseFile(option: String?, _ variables: [String: String]) -> String? {
        option ?? variables["VAULT_NEW_PASSPHRASE_FILE"]
    }
}
