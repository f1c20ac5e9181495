// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// The exit codes of the `vault` command, and the one place where errors become them
/// (the README's table). The libraries' errors say what went wrong; only the command
/// decides what number a shell sees. (`ExitStatus.of(AuthError)` is in VaultCLI.)
public enum ExitStatus {
    public static let success: Int32 = 0
    /// `load` found no item.
    public static let notFound: Int32 = 1
    /// Bad usage or input.
    public static let usage: Int32 = 2
    /// Authentication failed: wrong passphrase, damaged file, locked keyring, a keyring
    /// prompt not answered, rejected credentials.
    public static let authentication: Int32 = 3
    /// The backend cannot be used (or is unsafe), a lock was held past its bound, output
    /// cannot be written.
    public static let unavailable: Int32 = 4
    /// A network or server error.
    public static let network: Int32 = 5

    /// The exit code for a store error.
    public static func of(_ error: VaultError) -> Int32 {
        switch error {
        case .notFound: notFound
        case .invalidInput: usage
        case .locked, .notApproved, .accessDenied, .wrongPassphrase, .corrupted, .unsupportedFormat: authentication
        case .backendUnavailable, .permission, .conflict, .lockTimeout: unavailable
        case .remedied(let error, _): of(error)
        }
    }
}
