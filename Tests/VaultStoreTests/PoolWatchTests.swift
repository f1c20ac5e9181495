// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// The pool watch (`PoolWatch`), in a test process of its own: this test binary, run again
/// for one probe that blocks every thread of the pool, or keeps every one computing. A
/// blocked pool is a stall, with what each thread waits in; a computing one is only late.
@Suite("The pool watch: blocked is a stall, busy is not", .offThePool)
struct PoolWatchTests {
    @Test("a pool whose threads all sleep is reported as stalled, each thread in its system call")
    func blockedIsAStall() async throws {
        try await withTemporaryDirectory("pool-watch") { directory in
            let result = try await runProbe("block", directory: directory)
            #expect(result.status == 0, "\(result.err)")
            let stalls = try reports(in: directory, named: "pool-stalls-")
            #expect(stalls.contains("ran no job and used no CPU"))
            #expect(stalls.contains("tests running: [\"blockThePool()\"]"))
            #expect(stalls.contains("the pool ran again after"))
            // usleep is nanosleep (35) or clock_nanosleep (230) in glibc, in state S: one
            // thread a core. (The pool may keep another thread parked, waiting for work.)
            let threads = stalls.split(separator: "\n").filter { $0.contains("pool thread ") }
            let sleeping = threads.filter { $0.contains("state S, system call 230") || $0.contains("state S, system call 35") }
            #expect(sleeping.count >= PoolWatchProbe.width, "\(stalls)")
            #expect(result.err.contains("ran no job and used no CPU"))
        }
    }

    @Test("a pool whose threads all compute is late, not stalled: the pass does not fail for it")
    func busyIsLate() async throws {
        try await withTemporaryDirectory("pool-watch") { directory in
            let result = try await runProbe("compute", directory: directory)
            #expect(result.status == 0, "\(result.err)")
            #expect(try reports(in: directory, named: "pool-stalls-").isEmpty)
            let late = try reports(in: directory, named: "pool-late-")
            #expect(late.contains("busy, not blocked"))
            #expect(late.contains("tests running: [\"computeOnThePool()\"]"))
            #expect(!result.err.contains("pool watch"))
        }
    }

    /// This test binary again, running the probe `mode` with the watch writing to `directory`.
    private func runProbe(_ mode: String, directory: String) async throws -> ProcessResult {
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var environment = ProcessInfo.processInfo.environment
        environment["VAULT_TEST_POOL_WATCH"] = directory
        environment["VAULT_POOL_WATCH_PROBE"] = mode
        return try await ChildProcess.runAsync(
            binary, ["--testing-library", "swift-testing", "--filter", "PoolWatchProbe"], environment: environment,
            timeout: 120 * Double(Sanitizer.slowdown))
    }

    /// The text of the files in `directory` whose names start with `prefix`.
    private func reports(in directory: String, named prefix: String) throws -> String {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(prefix) }.map {
            try String(contentsOfFile: directory + "/" + $0, encoding: .utf8)
        }.joined()
    }
}

/// The probes `PoolWatchTests` runs in a process of its own; they never run otherwise.
@Suite(.offThePool)
struct PoolWatchProbe {
    static let mode = ProcessInfo.processInfo.environment["VAULT_POOL_WATCH_PROBE"]
    /// The pool's threads: one a core.
    static let width = ProcessInfo.processInfo.activeProcessorCount

    @Test(.enabled(if: mode == "block"))
    func blockThePool() async throws {
        // The watch learns the pool's threads from its own jobs first.
        try await Task.sleep(for: .seconds(1))
        // Four sleepers a thread: libdispatch adds a worker now and then when its workers
        // block (its workqueue monitor reads their states each second), and the new one must
        // find another sleeper ahead of the watch's job, not the job itself.
        await holdEveryPoolThread(jobs: 4 * Self.width) { usleep(3_000_000) }
    }

    @Test(.enabled(if: mode == "compute"))
    func computeOnThePool() async throws {
        try await Task.sleep(for: .seconds(1))
        await holdEveryPoolThread(jobs: Self.width) {
            let clock = ContinuousClock()
            let end = clock.now + .seconds(3)
            var spins = 0
            while clock.now < end { spins &+= 1 }
            #expect(spins > 0)
        }
    }

    private func holdEveryPoolThread(jobs: Int, _ body: @escaping @Sendable () -> Void) async {
        let jobs = (0..<jobs).map { _ in Task.detached { body() } }
        for job in jobs { await job.value }
        // The watch notes the pool's return within 10 ms: the process must still be there.
        try? await Task.sleep(for: .milliseconds(500))
    }
}
