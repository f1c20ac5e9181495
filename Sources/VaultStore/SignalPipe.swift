// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The write end of the signal pipe, for the signal handler (set once, before any handler
/// is installed).
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// The handler of the signals a ``SignalPipe`` catches: writes the signal's number into
/// the pipe (`write` is async-signal-safe; a full pipe drops the byte, and the signals
/// already in it are enough).
private func signalPipeHandler(_ number: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipeWriteEnd, &byte, 1)
    errno = saved
}

/// Signals (SIGTERM, SIGINT) handled by a process's own code instead of ending it: a real
/// handler writes each one into a pipe that a read source watches (the self-pipe trick),
/// and `onSignal` runs for it on a global queue.
///
/// Not libdispatch's signal sources: on Linux they read a `signalfd`, which sees a signal
/// only while it is pending, and vault's processes have threads that do not block it
/// (SwiftNIO's, the concurrency pool's): the kernel hands the signal to one of them, the
/// disposition the source needs (ignore) drops it, and the process never hears it. With a
/// handler, whichever thread the kernel picks runs it.
package enum SignalPipe {
    /// The installed read source, kept for the life of the process.
    nonisolated(unsafe) private static var source: (any DispatchSourceRead)?

    /// Catches `signals` from now on; `onSignal` gets each one's number. Call once per
    /// process. False when no pipe can be made (then the signals keep their action).
    @discardableResult
    package static func install(_ signals: [Int32], onSignal: @escaping @Sendable (Int32) -> Void) -> Bool {
        var ends: [Int32] = [-1, -1]
        guard source == nil, pipe(&ends) == 0 else { return false }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        signalPipeWriteEnd = ends[1]
        let readEnd = ends[0]
        let source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: .global())
        source.setEventHandler {
            var byte: UInt8 = 0
            while read(readEnd, &byte, 1) == 1 { onSignal(Int32(byte)) }
        }
        source.resume()
        Self.source = source
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = signalPipeHandler
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
        return true
    }
}
