// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAuth
import VaultStoreCLI

extension ExitStatus {
    /// The exit code for an authentication or request error.
    public static func of(_ error: AuthError) -> Int32 {
        switch error {
        case .authentication, .interactionRequired, .configuration, .excessiveRefresh: authentication
        case .server, .network: network
        case .store(let error): of(error)
        case .invalidRequest: usage
        case .lockTimeout, .unavailable: unavailable
        case .notLoggedIn: notFound
        }
    }
}
