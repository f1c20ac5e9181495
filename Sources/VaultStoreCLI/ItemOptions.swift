// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultStore

/// The `--server`/`--account` pair that names an item.
package struct ItemOptions: ParsableArguments {
    package init() {}

    @Option(help: "The server (a host name or URL).")
    package var server: String

    @Option(help: "The account on that server.")
    package var account: String

    /// The key; a URL server is normalised like `vault login` does (scheme and host
    /// lower-cased, no trailing slash), so both name the same item.
    package var key: CredentialKey { CredentialKey(server: ServerName.normalized(server), account: account) }

    /// A server URL with user info (`https://user:password@host`) would put a password in
    /// the item's attributes and label, which `list` shows: refused.
    package func validate() throws {
        if let schemeEnd = server.firstRange(of: "://") {
            let authority = server[schemeEnd.upperBound...].prefix { !"/?#".contains($0) }
            if authority.contains("@") {
                throw ValidationError("--server must not contain user info (user@ or user:password@); give the user with --account")
            }
        }
    }
}
