// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Glibc
import VaultSync

/// Runs async code to its end on the calling thread, for fuzz targets (which are
/// synchronous): the task prefers this executor, so its nonisolated code runs here, job by
/// job, without the thread pool. So a target is deterministic and blocks no pool thread
/// when `swift test` replays it.
final class InlineExecutor: TaskExecutor {
    private let jobs = Locked<[UnownedJob]>([])

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
    }

    /// What `body` returns; nil when it has not returned after about `seconds` (some job
    /// went to another executor and did not come back).
    func run<T: Sendable>(seconds: Int = 10, _ body: @escaping @Sendable () async -> T) -> T? {
        let result = ResultBox<T>()
        Task(executorPreference: self) {
            let value = await body()
            result.value.withLock { $0 = value }
        }
        var idle = 0
        while idle < seconds * 10_000 {
            if let value = result.value.withLock({ $0 }) { return value }
            let next = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            if let next {
                next.runSynchronously(on: asUnownedTaskExecutor())
                idle = 0
            } else {
                idle += 1
                usleep(100)
            }
        }
        return nil
    }
}

/// Where a task run by ``InlineExecutor`` leaves its result.
private final class ResultBox<T: Sendable>: Sendable {
    let value = Locked<T?>(nil)
}
