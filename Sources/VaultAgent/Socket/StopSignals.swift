// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// SIGTERM and SIGINT as an asynchronous wait (through ``SignalPipe``): once installed,
/// the signals no longer end the process; ``next()`` returns the first that arrives, so
/// the agent stops cleanly.
final class StopSignals: Sendable {
    private let stream: AsyncStream<Int32>

    /// Installs the handlers; call once per process.
    init(_ signals: [Int32] = [SIGTERM, SIGINT]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.stream = stream
        SignalPipe.install(signals) { continuation.yield($0) }
    }

    /// The next stop signal's number (0 when the wait is cancelled).
    func next() async -> Int32 {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next() ?? 0
    }

    /// The name of a stop signal, for the log.
    static func name(_ number: Int32) -> String {
        switch number {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        default: "signal \(number)"
        }
    }
}
