// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// What a ``SecretServiceStore`` does when the Secret Service answers with a prompt: an
/// unlock dialog, a confirmation before an item is deleted, or an approval before a client
/// may read an item (KeePassXC's "Confirm when passwords are retrieved by clients").
///
/// A prompt is a dialog that only a person can answer. Without one (``never``) the store
/// never shows it and fails at once with ``VaultError/locked(_:)`` or
/// ``VaultError/notApproved(_:)``. With one (``wait(timeout:announce:)``) it says what is
/// being asked through `announce`, shows the prompt, and waits at most `timeout`; then it
/// dismisses the prompt and fails the same way. Either way nothing is half-done: an item
/// whose deletion was not confirmed is still there, and the error says so.
public struct PromptPolicy: Sendable {
    /// How long a person may take to answer; nil: never show a prompt.
    public var timeout: Duration?
    /// Told, in one line, what the prompt asks and how long vault waits for it.
    public var announce: @Sendable (String) -> Void
    /// Why no prompt is shown, for the errors of ``never`` (a program says it in its own
    /// words: the `vault` command names its `--no-prompt`).
    public var whyNever: String = "prompts are off"

    /// Never show a prompt: the right policy for services, cron jobs and CI.
    public static let never = PromptPolicy(timeout: nil, announce: { _ in })

    /// ``never``, with `why` in its errors.
    public static func never(because why: String) -> PromptPolicy {
        PromptPolicy(timeout: nil, announce: { _ in }, whyNever: why)
    }

    /// Show prompts and wait for a person at most `timeout`, saying so through `announce`.
    public static func wait(timeout: Duration, announce: @escaping @Sendable (String) -> Void) -> PromptPolicy {
        PromptPolicy(timeout: timeout, announce: announce)
    }

    /// The default bound on waiting for a person (`vault --prompt-timeout`).
    public static let defaultTimeout: Duration = .seconds(60)
}
