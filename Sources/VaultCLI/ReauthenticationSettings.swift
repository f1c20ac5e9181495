// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore
import VaultStoreCLI

/// `VAULT_REAUTH_COOLDOWN` (seconds, 0 to a week; default 300): how long a rejected stored
/// password is not tried again.
package enum ReauthenticationSettings {
    /// The cool-down `variables` ask for. Unset or empty is the default; anything else that
    /// is not a number of seconds from 0 to 604800 is `.invalidInput` (a typo must not turn
    /// the cool-down off and let every command try a rejected password again).
    package static func coolDown(_ variables: [String: String]) throws(VaultError) -> TimeInterval {
        guard let raw = variables["VAULT_REAUTH_COOLDOWN"], !raw.isEmpty else { return 300 }
        guard let seconds = TimeInterval(raw), seconds.isFinite, (0...604_800).contains(seconds) else {
            throw .invalidInput("VAULT_REAUTH_COOLDOWN must be a number of seconds from 0 to 604800")
        }
        return seconds
    }
}
