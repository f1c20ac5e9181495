// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultTestSupport

/// What the DH session tests share: random bytes, and where the helpers are.
enum DHTestSupport {
    /// Tests/Helpers/dh-client, the independent Python client of the DH session.
    static let client: String = PackageRoot.appending("Tests/Helpers/dh-client")

    static func random(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
