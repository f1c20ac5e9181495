// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Dispatch
import Foundation
import Synchronization
import VaultStoreCLI

/// Ctrl-C (or SIGTERM) during a sign-in that waits for a person: one line, and exit 130
/// (143 for SIGTERM), the shell's codes. Nothing is stored before the sign-in completes,
/// so nothing is left half-written; the loopback listener dies with the process. Once the
/// tokens are being stored (``committing()``), a signal is ignored: the store finishes and
/// vault exits as usual, so "nothing was stored" is never said when something was.
enum Interruption {
    /// The installed sources, kept alive for the life of the process.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    private static let storing = Atomic<Bool>(false)

    /// Installs the handlers; `what` names the wait in the message. Call once, from the main task.
    static func handle(_ what: String) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                guard !storing.load(ordering: .sequentiallyConsistent) else { return }
                Terminal.note("\(what) cancelled; nothing was stored")
                _exit(signalNumber == SIGINT ? 130 : 143)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// From now on signals no longer stop vault: the tokens are being stored.
    static func committing() {
        storing.store(true, ordering: .sequentiallyConsistent)
    }
}
