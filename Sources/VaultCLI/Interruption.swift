// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Dispatch
import Foundation

/// Ctrl-C (or SIGTERM) during a sign-in that waits for a person: one line, and exit 130
/// (143 for SIGTERM), the shell's codes. Nothing is stored before the sign-in completes,
/// so nothing is left half-written; the loopback listener dies with the process.
enum Interruption {
    /// The installed sources, kept alive for the life of the process.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Installs the handlers; `what` names the wait in the message. Call once, from the main task.
    static func handle(_ what: String) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                Terminal.note("\(what) cancelled; nothing was stored")
                _exit(signalNumber == SIGINT ? 130 : 143)
            }
            source.resume()
            sources.append(source)
        }
    }
}
