// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Synchronization
import VaultStore
import VaultStoreCLI

/// Ctrl-C (or SIGTERM) during a sign-in that waits for a person: one line, and exit 130
/// (143 for SIGTERM), the shell's codes. Nothing is stored before the sign-in completes,
/// so nothing is left half-written; the loopback listener dies with the process. Once the
/// tokens are being stored (``committing()``), a signal is ignored: the store finishes and
/// vault exits as usual, so "nothing was stored" is never said when something was.
enum Interruption {
    private static let storing = Atomic<Bool>(false)

    /// Installs the handlers (``SignalPipe``); `what` names the wait in the message. Call once, from the main task.
    static func handle(_ what: String) {
        SignalPipe.install([SIGINT, SIGTERM]) { signalNumber in
            guard !storing.load(ordering: .sequentiallyConsistent) else { return }
            Terminal.note("\(what) cancelled; nothing was stored")
            _exit(signalNumber == SIGINT ? 130 : 143)
        }
    }

    /// From now on signals no longer stop vault: the tokens are being stored.
    static func committing() {
        storing.store(true, ordering: .sequentiallyConsistent)
    }
}
