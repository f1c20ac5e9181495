// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The release every program of the package reports (`vault --version`, `vault agent --check`).
public enum VaultRelease {
    public static let version = "0.1.0"
}
