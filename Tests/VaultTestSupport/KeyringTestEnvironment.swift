// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore

/// Whether the Secret Service tests may run. They need a real Secret Service on the
/// session bus: `Scripts/test` runs everything under `Scripts/with-keyring` (and again
/// under `Scripts/with-keepassxc`), where they always run, so a keyring that does not
/// answer there FAILS them (``require(sourceLocation:)``). A plain `swift test` runs them
/// only when a Secret Service answers, and otherwise skips them with a notice (the
/// ``Testing/Trait/needsKeyring`` trait). `VAULT_SKIP_KEYRING_TESTS=1` skips them anywhere.
public enum KeyringTestEnvironment {
    public static var skipRequested: Bool { ProcessInfo.processInfo.environment["VAULT_SKIP_KEYRING_TESTS"] == "1" }

    /// Inside `Scripts/with-keyring` or `Scripts/with-keepassxc`: a keyring was promised.
    public static var isInsideWrapper: Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment["VAULT_WITH_KEYRING"] == "1" || environment["VAULT_WITH_KEEPASSXC"] == "1"
    }

    /// Whether the keyring tests run in this process: not when skipped on request; always
    /// inside a wrapper; elsewhere when a Secret Service answers (asked once per process).
    public static var shouldRun: Bool { !skipRequested && (isInsideWrapper || answers) }

    private static let answers: Bool =
        SecretServiceProbe.probe(environment: ProcessInfo.processInfo.environment, timeout: .seconds(5)).available

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

    /// The bound a test gives each of the store's D-Bus calls: only a hang's bound (the
    /// D-Bus default), never a speed claim. vault's own default (3 s) is the product's
    /// answer to a keyring that hangs; on a loaded 2-core machine a keyring, and vault's
    /// debug-built provider above all, can take longer than that to answer.
    public static let callBound: Duration = .seconds(25)

    /// Where a test's keyring store takes its item locks: the wrapper's `VAULT_LOCK_DIR`
    /// (a temporary directory), as the `vault` command would; never the account's real
    /// `~/.cache/vault/locks` when a wrapper gave one.
    public static var lockDirectory: String {
        ProcessInfo.processInfo.environment["VAULT_LOCK_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? RefreshLock.perUserDirectory()
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

extension Trait where Self == ConditionTrait {
    /// Runs a test or suite that needs a Secret Service only where it may
    /// (``KeyringTestEnvironment/shouldRun``); elsewhere, as in a plain `swift test` on a
    /// machine without a keyring, it is skipped and this says why.
    public static var needsKeyring: Self {
        .enabled(
            if: KeyringTestEnvironment.shouldRun,
            "needs a Secret Service: none answers here, or VAULT_SKIP_KEYRING_TESTS=1 (Scripts/test runs it in Scripts/with-keyring)")
    }

    /// Runs a test or suite that needs an etcd cluster only where it may
    /// (``EtcdTestEnvironment/shouldRun``); elsewhere, as in a plain `swift test`, it is
    /// skipped and this says why.
    public static var needsEtcd: Self {
        .enabled(
            if: EtcdTestEnvironment.shouldRun,
            "needs etcd: no VAULT_ETCD_ENDPOINTS, or VAULT_SKIP_ETCD_TESTS=1 (Scripts/test runs it in Scripts/with-etcd)")
    }
}
