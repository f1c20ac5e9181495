// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// SIGTERM and SIGINT as an asynchronous wait: once installed, the signals no longer end
/// the process; ``next()`` returns the first that arrives, so the agent stops cleanly.
final class StopSignals: Sendable {
    private let stream: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation
    nonisolated(unsafe) private var sources: [any DispatchSourceSignal] = []

    /// Installs the handlers; call once.
    init(_ signals: [Int32] = [SIGTERM, SIGINT]) {
        (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        var installed: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [continuation] in continuation.yield(number) }
            source.resume()
            installed.append(source)
        }
        sources = installed
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
