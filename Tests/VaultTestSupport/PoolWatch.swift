// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultSync

/// Watches the test process's Swift concurrency pool for stalls: a thread of its own hands
/// the pool a small job every 100 ms and measures how long the job waits to run. A wait of
/// more than ``limit`` means every thread of the pool was held (a test that blocked one: a
/// child process, a sleep, a blocking read), so the in-process servers and listeners of
/// the other tests stood still. Each stall is written, with the tests running at the time,
/// as one line to a file in `VAULT_TEST_POOL_WATCH` (a directory); `Scripts/test` fails
/// the pass when that directory holds any line. Without the variable nothing is watched.
///
/// It starts with the first test that runs under ``OffThePoolTrait`` (every suite has it
/// or ``OffThePoolTrait/cpuBound``), and runs until the process exits.
public enum PoolWatch {
    /// The longest a job may wait for a pool thread.
    public static let limit: Duration = .seconds(2)
    /// How often the pool is handed a job.
    static let interval: Duration = .milliseconds(100)

    private static let directory = ProcessInfo.processInfo.environment["VAULT_TEST_POOL_WATCH"].flatMap { $0.isEmpty ? nil : $0 }
    private static let running = Locked([String: Int]())

    /// Starts the watch, once per process (when `VAULT_TEST_POOL_WATCH` is set).
    static let start: Void = {
        guard let directory else { return }
        let path = directory + "/pool-stalls-\(getpid())"
        Thread.detachNewThread { watch(writingTo: path) }
    }()

    /// Runs `body` as the test `name`, which a stall report then names.
    static func track<T>(_ name: String, _ body: () async throws -> T) async rethrows -> T {
        _ = start
        running.withLock { $0[name, default: 0] += 1 }
        defer {
            running.withLock {
                $0[name, default: 1] -= 1
                if $0[name] == 0 { $0[name] = nil }
            }
        }
        return try await body()
    }

    /// The watch's loop, on a thread of its own: a job for the pool, then a wait for it
    /// that notes a stall once it passes `limit`, and the wait's end.
    private static func watch(writingTo path: String) {
        let clock = ContinuousClock()
        while true {
            let ran = Locked(false)
            let sent = clock.now
            Task.detached { ran.withLock { $0 = true } }
            var reported = false
            while !ran.withLock({ $0 }) {
                usleep(10_000)
                let waited = clock.now - sent
                if waited > limit && !reported {
                    reported = true
                    let names = running.withLock { $0.keys.sorted() }
                    note("the concurrency pool ran no job for \(waited) (limit \(limit)); tests running: \(names)", path: path)
                }
            }
            if reported { note("the pool ran again after \(clock.now - sent)", path: path) }
            Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
        }
    }

    /// Appends `line` to the report file and to stderr.
    private static func note(_ line: String, path: String) {
        let text = "pool watch (pid \(getpid())): \(line)\n"
        FileHandle.standardError.write(Data(text.utf8))
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return }
        _ = text.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
        close(descriptor)
    }
}
