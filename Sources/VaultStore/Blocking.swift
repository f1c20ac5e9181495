// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one way vault runs blocking work (a D-Bus round trip, a key derivation, a file
/// write, a `flock`, an etcd call) from asynchronous code: on a thread of its own, one per
/// call, so it never blocks the Swift concurrency pool. (On Linux the pool *is*
/// libdispatch's global queue, so `DispatchQueue.global()` would not do: blocking it
/// starves every task, an in-process server's handlers included.)
public enum Blocking {
    /// Runs `body` on a new thread and suspends (without blocking a thread of the pool)
    /// until it returns or throws; its error is rethrown as it is.
    public static func run<T: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> T
    ) async throws(Failure) -> T {
        let result: Result<T, Failure> = await withCheckedContinuation { continuation in
            detach {
                do throws(Failure) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Starts `body` on a new thread and returns at once: for work
    /// nobody waits for (a lease revoked in the background, a child process reaped). When no
    /// thread can be made (the process is at its limit), `body` runs on the caller's thread.
    public static func detach(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Work(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Darwin)
            var thread: pthread_t?
        #else
            var thread = pthread_t()
        #endif
        guard pthread_create(&thread, &attributes, startWork, context) == 0 else {
            Unmanaged<Work>.fromOpaque(context).takeRetainedValue().body()
            return
        }
    }

    /// What a thread of ``detach(_:)`` runs.
    private final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    #if canImport(Darwin)
        private static let startWork: @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? = { context in
            Unmanaged<Work>.fromOpaque(context).takeRetainedValue().body()
            return nil
        }
    #else
        private static let startWork: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
            Unmanaged<Work>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }
    #endif
}
