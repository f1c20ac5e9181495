// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore

/// Whether the Secret Service tests may run. They need a real Secret Service on the
/// session bus (`Scripts/test` runs everything under `Scripts/with-keyring`). Without
/// one they FAIL, unless `VAULT_SKIP_KEYRING_TESTS=1` asks to skip them.
public enum KeyringTestEnvironment {
    public static var skipRequested: Bool { ProcessInfo.processInfo.environment["VAULT_SKIP_KEYRING_TESTS"] == "1" }

    /// Records a failure and throws when no Secret Service answers.
    public static func require(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let outcome = SecretServiceProbe.probe(environment: ProcessInfo.processInfo.environment, timeout: .seconds(5))
        if !outcome.available {
            Issue.record(
                """
                no Secret Service for the keyring tests: \(outcome.reason). Run the tests with \
                Scripts/test (or Scripts/with-keyring swift test), or set VAULT_SKIP_KEYRING_TESTS=1 to skip them.
                """, sourceLocation: sourceLocation)
            throw CancellationError()
        }
    }

    /// True inside `Scripts/with-keepassxc` (KeePassXC, not GNOME Keyring).
    public static var isKeePassXC: Bool { ProcessInfo.processInfo.environment["VAULT_WITH_KEEPASSXC"] == "1" }

    /// `secret-tool search --all`'s attribute lines, without those KeePassXC adds to every
    /// item (its entry fields and the content type of a binary secret).
    public static func attributeLines(_ searchOutput: String) -> Set<Substring> {
        Set(searchOutput.split(separator: "\n").filter { line in !keePassXCAttributes.contains { line.hasPrefix("attribute.\($0) = ") } })
    }

    /// The attributes KeePassXC adds to every item it exposes (its entry fields), and to a
    /// binary secret (its content type).
    public static let keePassXCAttributes = ["Title", "UserName", "URL", "Notes", "Path", "Uuid", "FDO_SECRETS_CONTENT_TYPE"]

    /// A unique name for this run, so parallel runs and tests never share items.
    public static func uniqueNamespace(_ prefix: String) -> String {
        "\(prefix)-\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
    }
}
