// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.
//
// The false positive that Scripts/sanitizers/tsan.supp suppresses as `race:sScc6resume`,
// in a program that shares no data of its own between threads. Tasks hand an
// UnsafeContinuation to a plain thread (as SwiftNIO's EventLoopFuture.get() hands one to
// an event loop), which resumes it; the task then calls a function whose async frame
// reuses the task allocator's memory. ThreadSanitizer (Swift 6.3.1, Linux) reports about
// every other run a race between UnsafeContinuation.resume(returning:) reading the
// continuation's context on the resuming thread and the new frame's write, both in that
// memory: the order the Swift runtime gives them is not one TSan sees. (Written with
// CheckedContinuation, the same program reported nothing in six runs.)
//
//   swiftc -sanitize=thread -parse-as-library -g Scripts/sanitizers/continuation-race.swift -o /tmp/continuation-race
//   for i in 1 2 3 4 5 6; do /tmp/continuation-race; done 2>&1 | grep -c 'WARNING: ThreadSanitizer'
//   TSAN_OPTIONS=suppressions=Scripts/sanitizers/tsan.supp /tmp/continuation-race   # reports nothing

import Foundation

final class Handoff: @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: [UnsafeContinuation<Int, Never>] = []
    private var done = false

    func put(_ continuation: UnsafeContinuation<Int, Never>) { lock.withLock { waiting.append(continuation) } }
    func finish() { lock.withLock { done = true } }

    /// Resumes every continuation handed over, until `finish()`.
    func serve() {
        while true {
            let (ready, finished) = lock.withLock { () -> ([UnsafeContinuation<Int, Never>], Bool) in
                defer { waiting = [] }
                return (waiting, done)
            }
            for continuation in ready { continuation.resume(returning: 1) }
            if finished { return }
        }
    }
}

@inline(never) func frameWriter(_ n: Int) async -> Int {
    var values = (n, n &+ 1, n &+ 2, n &+ 3, n &+ 4, n &+ 5, n &+ 6, n &+ 7)
    values.0 = values.7 &+ values.1
    return await withUnsafeContinuation { $0.resume(returning: values.0 &+ values.3) }
}

@main struct ContinuationRace {
    static func main() async {
        let handoff = Handoff()
        Thread.detachNewThread { handoff.serve() }
        var total = 0
        for _ in 0..<50 {
            total &+= await withTaskGroup(of: Int.self) { group in
                for index in 0..<40 {
                    group.addTask { (await withUnsafeContinuation { handoff.put($0) }) &+ (await frameWriter(index)) }
                }
                return await group.reduce(0, &+)
            }
        }
        handoff.finish()
        print(total)
    }
}
