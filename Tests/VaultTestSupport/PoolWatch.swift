// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultSync

/// Watches the test process's Swift concurrency pool for stalls: a thread of its own hands
/// the pool a small job every 100 ms and waits for it to run. While it waits, it reads how
/// much CPU time the pool's threads use (`/proc/self/task/TID/schedstat`). A pool that
/// uses none for more than ``limit`` while the job waits is stalled: every thread of it
/// is held by a test that blocked it (a child process, a sleep, a blocking read, a lock),
/// and the in-process servers and listeners of the other tests stand still. Each stall is
/// written, with the tests running and what each pool thread waits in (its state, system
/// call and kernel stack), as lines to a file in `VAULT_TEST_POOL_WATCH` (a directory);
/// `Scripts/test` fails the pass when that directory holds a stall.
///
/// A job that waits longer than ``limit`` for a pool that computes meanwhile is not a
/// stall: the pool makes progress, only slowly, on a machine whose cores other processes
/// share. That wait is written to another file there (`pool-late-PID`), with the CPU time
/// the pool used meanwhile, for `Scripts/test` to report without failing the pass.
/// Without the variable nothing is watched.
///
/// It starts with the first test that runs under ``OffThePoolTrait`` (every suite has it
/// or ``OffThePoolTrait/cpuBound``), and runs until the process exits.
public enum PoolWatch {
    /// The longest the pool may go without computing while a job waits for it.
    public static let limit: Duration = .seconds(2)
    /// How often the pool is handed a job.
    static let interval: Duration = .milliseconds(100)
    /// The CPU time the pool must use to count as making progress.
    static let progress: Duration = .milliseconds(5)

    private static let directory = ProcessInfo.processInfo.environment["VAULT_TEST_POOL_WATCH"].flatMap { $0.isEmpty ? nil : $0 }
    private static let running = Locked([String: Int]())
    /// The kernel thread ids of the pool's threads: those the watch's jobs ran on.
    private static let poolThreads = Locked(Set<Int32>())

    /// Starts the watch, once per process (when `VAULT_TEST_POOL_WATCH` is set).
    static let start: Void = {
        guard let directory else { return }
        let pid = getpid()
        Thread.detachNewThread {
            watch(stalls: directory + "/pool-stalls-\(pid)", late: directory + "/pool-late-\(pid)")
        }
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

    /// The watch's loop, on a thread of its own: a job for the pool, then a wait for it,
    /// sampling the pool's CPU time every 10 ms, that notes a stall once the pool has used
    /// none for `limit`, and a late job once it has waited `limit`.
    private static func watch(stalls: String, late: String) {
        let clock = ContinuousClock()
        while true {
            let ran = Locked(false)
            let sent = clock.now
            // At the default priority, as the tests' and servers' jobs: behind their queue.
            Task.detached {
                let tid = threadID()
                if tid > 0 { poolThreads.withLock { _ = $0.insert(tid) } }
                ran.withLock { $0 = true }
            }
            var cpu = CPUSamples(threads: poolThreads.withLock { $0 })
            var lastProgress = sent
            var used: Duration = .zero
            var stalled = false
            var lateWhile: [String]? = nil
            while !ran.withLock({ $0 }) {
                usleep(10_000)
                let gained = cpu.sample(threads: poolThreads.withLock { $0 })
                used += gained
                // Without a known pool thread nothing can be judged: lateness decides.
                if gained >= progress || cpu.isEmpty && clock.now - sent <= limit { lastProgress = clock.now }
                if clock.now - lastProgress > limit && !stalled {
                    stalled = true
                    note(
                        "the concurrency pool ran no job and used no CPU for \(clock.now - lastProgress) (limit \(limit)); "
                            + "tests running: \(testsRunning())\n" + threadReport(cpu.threads),
                        path: stalls)
                }
                if clock.now - sent > limit && lateWhile == nil { lateWhile = testsRunning() }
            }
            let waited = clock.now - sent
            if stalled {
                note("the pool ran again after \(waited)", path: stalls)
            } else if let lateWhile {
                note(
                    "a job waited \(waited) for the pool, which used \(used) of CPU meanwhile: busy, not blocked; "
                        + "tests running: \(lateWhile)",
                    path: late, echo: false)
            }
            Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
        }
    }

    private static func testsRunning() -> [String] { running.withLock { $0.keys.sorted() } }

    /// What each pool thread is doing: its state, the system call it is in, its wait
    /// channel and the top of its kernel stack, one line a thread.
    private static func threadReport(_ threads: Set<Int32>) -> String {
        threads.sorted().map { tid in
            let task = "/proc/self/task/\(tid)/"
            let stat = read(task + "stat")
            let state = stat.flatMap { $0.split(separator: ")").last?.split(separator: " ").first }.map(String.init) ?? "?"
            let syscall = read(task + "syscall")?.split(separator: " ").first.map(String.init) ?? "?"
            let wchan = read(task + "wchan") ?? "?"
            let stack = (read(task + "stack") ?? "").split(separator: "\n").prefix(4).map {
                $0.split(separator: " ").last.map(String.init) ?? ""
            }
            return "  pool thread \(tid): state \(state), system call \(syscall), waits in \(wchan), kernel stack \(stack)"
        }.joined(separator: "\n")
    }

    /// Appends `line` to the file at `path` and, when `echo`, to stderr.
    private static func note(_ line: String, path: String, echo: Bool = true) {
        let text = "pool watch (pid \(getpid())): \(line)\n"
        if echo { FileHandle.standardError.write(Data(text.utf8)) }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return }
        _ = text.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
        close(descriptor)
    }

    /// A small file of /proc, whole, or nil.
    fileprivate static func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The calling thread's kernel id, from `/proc/thread-self` (`PID/task/TID`): Glibc's
    /// `gettid` is not imported into Swift.
    private static func threadID() -> Int32 {
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
        return link.split(separator: "/").last.flatMap { Int32($0) } ?? 0
    }
}

/// The CPU time of a set of threads, sampled: each sample says how much they used since
/// the last. A thread that has gone is dropped; one that is new starts from its sample.
private struct CPUSamples {
    private var last: [Int32: UInt64] = [:]

    init(threads: Set<Int32>) { _ = sample(threads: threads) }

    var threads: Set<Int32> { Set(last.keys) }
    var isEmpty: Bool { last.isEmpty }

    /// The CPU time `threads` used since the last sample.
    mutating func sample(threads: Set<Int32>) -> Duration {
        var gained: UInt64 = 0
        var now: [Int32: UInt64] = [:]
        for tid in threads {
            // The first field: nanoseconds spent on a CPU.
            guard let nanoseconds = PoolWatch.read("/proc/self/task/\(tid)/schedstat")?.split(separator: " ").first.flatMap({ UInt64($0) })
            else { continue }
            now[tid] = nanoseconds
            if let before = last[tid], nanoseconds > before { gained += nanoseconds - before }
        }
        last = now
        return .nanoseconds(Int64(clamping: gained))
    }
}
