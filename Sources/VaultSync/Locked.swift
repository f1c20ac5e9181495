// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value that one thread at a time may use: vault's lock for state shared between threads
/// and tasks, used the way `Synchronization.Mutex` is (`Locked(State())`,
/// `state.withLock { $0.count += 1 }`), over a `pthread_mutex_t` that ThreadSanitizer sees, where
/// `Mutex` is reported as racing (docs/testing.md, "Testing under the sanitizers"). The contract
/// is `Mutex`'s: `body` runs with the lock held and must not call `withLock` on the same value
/// again (the mutex is not recursive: that traps), nor block for long, since every other user of
/// the value waits for it.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// A lock around `value`, which from now on is reached only through ``withLock(_:)``.
    public init(_ value: sending Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        // Error-checking: a `withLock` inside `withLock` on the same value traps with a
        // message (as `Mutex` does) instead of hanging.
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        let status = pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` on the value with the lock held, and returns what it returns; its error
    /// is rethrown as it is, and the lock is released either way.
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        let status = pthread_mutex_lock(mutex)
        precondition(status == 0, "Locked.withLock re-entered on the same thread (or the lock is broken): \(status)")
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
