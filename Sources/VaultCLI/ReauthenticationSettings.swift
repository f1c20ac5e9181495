// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStoreCLI

/// `VAULT_REAUTH_COOLDOWN` (seconds, default 300): how long a rejected stored password
/// is not tried again.
enum ReauthenticationSettings {
    static func coolDown(_ environment: [String: String]) -> TimeInterval {
        environment["VAULT_REAUTH_COOLDOWN"].flatMap(TimeInterval.init).map { max(0, $0) } ?? 300
    }
}
