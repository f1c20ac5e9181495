// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing

/// A suite or test trait: its tests run on threads of their own, not on the Swift
/// concurrency pool (`@Suite(.offThePool)`, or `.cpuBound` for tests that compute).
///
/// Why: a test process has one pool of as many threads as the machine has cores (two
/// here), shared by every test that runs at the same time. A test that blocks a thread
/// (a synchronous `SecureStore` call to D-Bus, a wait for a child process, a `flock`)
/// or computes for seconds holds one of them for as long as it does. Two such tests at
/// once left no thread for the in-process servers and listeners of the others, whose
/// answers then missed their deadlines on a busy machine, or even an idle one (issue
/// 28). So every suite of the library pass carries one of these traits. (The CLI passes'
/// suites do not: there the pool's width is what keeps dozens of child processes from
/// running at once, and no in-process server shares their process with synchronous tests
/// unserialized; see `SynchronousProcessSuites`.)
///
/// How: the test body runs with an ``OwnThreadExecutor`` as its task executor preference,
/// so its synchronous code and the nonisolated async code it awaits (and the default
/// actors it calls) run on that executor's threads. Unstructured tasks it starts, and
/// servers' event loops, are not affected.
public struct OffThePoolTrait: TestTrait, SuiteTrait, TestScoping {
    /// The executor the tests run on.
    let executor: OwnThreadExecutor

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if test.isSuite {
            try await withTaskExecutorPreference(executor) { try await function() }
            return
        }
        try await PoolWatch.track(test.name) {
            try await withTaskExecutorPreference(executor) { try await function() }
        }
    }
}

extension Trait where Self == OffThePoolTrait {
    /// The tests run on threads of their own, never blocking the concurrency pool.
    public static var offThePool: Self { Self(executor: .shared) }

    /// The tests compute for seconds (a KDF, modular arithmetic, a corpus replay): off the
    /// pool too, and one job of theirs at a time, so that together they take at most one
    /// core and leave the other to the servers, listeners and timers of the other tests.
    public static var cpuBound: Self { Self(executor: .computing) }
}

/// A task executor that runs each job on a thread of an ``ElasticThreads`` pool: for tests
/// that block, an idle thread or a new one, never a queue behind a blocked job, so it is
/// never starved and never starves anyone; for tests that compute, one thread.
public final class OwnThreadExecutor: TaskExecutor {
    /// As many threads as jobs at once, for tests that block (``OffThePoolTrait/offThePool``).
    public static let shared = OwnThreadExecutor(width: .max)
    /// One thread, for tests that compute (``OffThePoolTrait/cpuBound``): their synchronous
    /// work never waits for another job of theirs, so one at a time cannot deadlock.
    public static let computing = OwnThreadExecutor(width: 1)

    private let threads: ElasticThreads

    private init(width: Int) { threads = ElasticThreads(width: width) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        threads.run { job.runSynchronously(on: executor) }
    }
}

/// Runs `body`, which blocks (a blocking read, a sleep, a wait for a child process), on a
/// thread of its own and suspends until it returns: the concurrency pool's threads stay
/// free for the servers and listeners of the other tests.
public func onOwnThread<T: Sendable, Failure: Error>(_ body: @escaping @Sendable () throws(Failure) -> T) async throws(Failure) -> T {
    let result: Result<T, Failure> = await withTaskExecutorPreference(OwnThreadExecutor.shared) {
        do throws(Failure) { return .success(try body()) } catch { return .failure(error) }
    }
    return try result.get()
}
