// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultAuth
import VaultStoreCLI

/// Runs `body`; an `AuthError` becomes one line on stderr (``AuthError/worded``) and its exit code.
func reportingAuthErrors(_ body: () async throws(AuthError) -> Void) async throws(ExitCode) {
    do {
        try await body()
    } catch {
        Terminal.note(error.worded)
        throw ExitCode(ExitStatus.of(error))
    }
}

extension AuthError {
    /// One line for the person at the command: ``description``, with a store error's
    /// remedy worded as the command's options (``VaultError/worded``).
    var worded: String {
        if case .store(let error) = self { return error.worded }
        return description
    }
}
