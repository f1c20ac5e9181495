// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The one rule for what vault hands down to a program it starts (the browser of a sign-in,
/// the command of `vault exec`): none of vault's own settings. Every `VAULT_*` variable (a
/// passphrase, a passphrase file, the vault file, the backend, etcd's settings) and
/// systemd's `CREDENTIALS_DIRECTORY` (where `LoadCredential=` put the passphrase) stay
/// with vault, so the child cannot open the vault with what vault was given.
public enum ChildEnvironment {
    /// True for a variable a child never inherits from vault.
    public static func isWithheld(_ name: String) -> Bool {
        name.hasPrefix("VAULT_") || name == "CREDENTIALS_DIRECTORY"
    }

    /// `environment` without the withheld variables.
    public static func inherited(from environment: [String: String]) -> [String: String] {
        environment.filter { !isWithheld($0.key) }
    }
}
