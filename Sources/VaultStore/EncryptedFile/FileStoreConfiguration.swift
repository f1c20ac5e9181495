// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// Where an ``EncryptedFileStore`` keeps its vault and how long a write waits for another
/// process: what a program decides (the `vault` command from `--file`, `VAULT_FILE` and
/// `VAULT_LOCK_TIMEOUT`), typed, so the library reads no environment.
public struct FileStoreConfiguration: Sendable, Equatable {
    /// The vault file (``StandardLocations/defaultVaultFile`` when nobody says otherwise).
    public var path: String
    /// The longest a write waits for another process's lock on the vault file.
    public var lockTimeout: Duration

    /// The default ``lockTimeout``: 10 s.
    public static let defaultLockTimeout: Duration = .seconds(10)
    /// The shortest and longest lock timeouts the `vault` command accepts: 0.1 s to an hour.
    public static let lockTimeoutRange: ClosedRange<Duration> = .milliseconds(100) ... .seconds(3600)

    /// A configuration for the vault at `path`.
    public init(path: String, lockTimeout: Duration = defaultLockTimeout) {
        self.path = path
        self.lockTimeout = lockTimeout
    }
}
