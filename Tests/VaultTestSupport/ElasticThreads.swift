// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// A pool of threads that grows to `width`: a piece of work runs at once on an idle thread,
/// or on a new one while fewer than `width` are alive, so with no bound on `width` work
/// that blocks never keeps other work waiting; with a bound, work waits its turn. A thread
/// idle for `idleSeconds` ends. Threads are reused because making one is slow under
/// ThreadSanitizer, and a test makes thousands of pieces of work.
final class ElasticThreads: @unchecked Sendable {
    private let width: Int
    private let idleSeconds: Int
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Guarded by `mutex`:
    private var queue: [@Sendable () -> Void] = []
    private var next = 0
    private var idle = 0
    private var alive = 0
    private var starting = 0

    init(width: Int = .max, idleSeconds: Int = 5) {
        self.width = width
        self.idleSeconds = idleSeconds
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        wake.initialize(to: pthread_cond_t())
        pthread_cond_init(wake, nil)
    }

    // The pools live as long as the test process; no deinit is needed or wanted.

    /// Runs `work` on a thread of the pool: at once, unless `width` threads are busy.
    func run(_ work: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(mutex)
        queue.append(work)
        let spawn = queue.count - next > idle + starting && alive < width
        if spawn {
            starting += 1
            alive += 1
        } else {
            pthread_cond_signal(wake)
        }
        pthread_mutex_unlock(mutex)
        // Foundation's thread: a thread that cannot be made is a crash, never a job run on
        // the caller's thread (which may hold a lock, or be another pool's).
        if spawn { Thread.detachNewThread { self.serve() } }
    }

    /// A thread's life: take work until none comes for `idleSeconds`.
    private func serve() {
        pthread_mutex_lock(mutex)
        starting -= 1
        while true {
            if next < queue.count {
                let work = queue[next]
                next += 1
                if next == queue.count {
                    queue.removeAll(keepingCapacity: true)
                    next = 0
                }
                pthread_mutex_unlock(mutex)
                work()
                pthread_mutex_lock(mutex)
                continue
            }
            idle += 1
            var deadline = timespec()
            clock_gettime(CLOCK_REALTIME, &deadline)
            deadline.tv_sec += idleSeconds
            let status = pthread_cond_timedwait(wake, mutex, &deadline)
            idle -= 1
            if status == ETIMEDOUT && next == queue.count { break }
        }
        alive -= 1
        pthread_mutex_unlock(mutex)
    }
}
