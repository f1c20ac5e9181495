// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultAuth
import VaultStoreCLI

/// Runs `body`; an `AuthError` becomes one line on stderr and its exit code.
func reportingAuthErrors(_ body: () async throws(AuthError) -> Void) async throws(ExitCode) {
    do {
        try await body()
    } catch {
        Terminal.note(error.description)
        throw ExitCode(ExitStatus.of(error))
    }
}
