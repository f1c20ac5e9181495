// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore
import VaultSync

/// The fleet's refresh lock: etcd's lock service under a lease, so one refresh (or one
/// re-login) serves every machine that shares the store, and a machine that dies while it
/// holds the lock frees it when its lease expires (``EtcdConfiguration/lockTTL`` seconds).
///
/// - The lease is kept alive (every third of its TTL, on a thread of its own) from the
///   moment it is granted, while the caller waits in the queue and while it holds the
///   lock; a hold whose lease is found expired on acquiring is given up and the wait starts
///   again, so two holders never both believe they hold it.
/// - Lock names are hidden like item names (`PREFIX` + `locks/` + an HMAC of server and
///   account), so etcd does not learn which accounts refresh.
/// - Giving up after the timeout revokes the lease, which takes the waiter out of the queue.
public struct EtcdAccountLocking: AccountLocking {
    let store: EtcdStore

    /// The lock of accounts kept in `store`.
    public init(store: EtcdStore) { self.store = store }

    public func lock(server: String, account: String, timeout: Duration) async throws(VaultError) -> any AccountLockHold {
        let store = self.store
        let attempt = LockAttempt(client: store.client)
        let result = await withTaskCancellationHandler {
            await attempt.run { () throws(VaultError) -> EtcdLockHold? in
                try EtcdLockHold.acquire(store: store, server: server, account: account, timeout: timeout, attempt: attempt)
            }
        } onCancel: {
            attempt.cancel()
        }
        if attempt.isCancelled {
            if case .success(let hold?) = result { await hold.release() }
            throw .lockTimeout("stopped waiting for the fleet's refresh lock of \(account) on \(server)")
        }
        guard let hold = try result.get() else {
            throw .lockTimeout(
                "gave up after \(timeout) waiting for the fleet's refresh lock of \(account) on \(server) (etcd, \(store.prefix)locks/), "
                    + "held by another machine (or etcd did not answer)")
        }
        return hold
    }
}

/// A held etcd lock: its lease, kept alive until ``release()``.
final class EtcdLockHold: AccountLockHold {
    private let client: EtcdClient
    let lease: Int64
    private let stopped = Locked(false)

    private init(client: EtcdClient, lease: Int64) {
        self.client = client
        self.lease = lease
    }

    deinit {
        // Dropped without release(): end the lease off this thread, without waiting.
        let client = client
        let lease = lease
        if !stopped.withLock({ $0 }) { Blocking.detach { try? client.revoke(lease: lease, overall: .seconds(2)) } }
    }

    func release() async {
        guard stop() else { return }
        let client = client
        let lease = lease
        try? await Blocking.run { () throws(VaultError) in try client.revoke(lease: lease, overall: .seconds(5)) }
    }

    /// Renews the lease now: true when it was still alive (so no other machine can have
    /// taken the lock). A lease that expired while this process was stalled is not renewed.
    func isStillHeld() async -> Bool {
        guard !stopped.withLock({ $0 }) else { return false }
        let client = client
        let lease = lease
        let ttl = try? await Blocking.run { () throws(VaultError) -> Int in try client.keepAlive(lease: lease, overall: .seconds(3)) }
        return (ttl ?? 0) > 0
    }

    /// Marks the hold ended; false when it already was.
    private func stop() -> Bool {
        stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
    }

    /// Waits for the lock (blocking); nil when `timeout` passed first or `attempt` was cancelled.
    static func acquire(
        store: EtcdStore, server: String, account: String, timeout: Duration, attempt: LockAttempt
    ) throws(VaultError) -> EtcdLockHold? {
        let client = store.client
        let name = try store.lockName(server: server, account: account)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, !attempt.isCancelled {
            let ttl = client.configuration.lockTTL
            let hold = EtcdLockHold(client: client, lease: try client.grantLease(ttl: ttl))
            // A cancelled wait revokes the lease, which takes this waiter out of the queue.
            guard attempt.waiting(on: hold.lease) else {
                hold.end()
                return nil
            }
            hold.keepAliveInBackground(every: .milliseconds(ttl * 1000 / 3))
            do {
                _ = try client.lock(name, lease: hold.lease, timeout: deadline - ContinuousClock.now)
            } catch .backendUnavailable(let why) where why.contains("did not answer within") && ContinuousClock.now >= deadline {
                hold.end()
                return nil
            } catch {
                hold.end()
                throw error
            }
            // The lease must still be alive: a hold whose lease expired while queued is no hold.
            if !attempt.isCancelled, (try? client.keepAlive(lease: hold.lease, overall: .seconds(2))) ?? 0 > 0 { return hold }
            hold.end()
        }
        return nil
    }

    /// Ends the hold now, without waiting (used when acquiring fails).
    func end() {
        guard stop() else { return }
        try? client.revoke(lease: lease, overall: .seconds(2))
    }

    private func keepAliveInBackground(every interval: Duration) {
        let client = client
        let lease = lease
        Blocking.detach { [weak self] in
            var next = ContinuousClock.now + interval
            while true {
                Thread.sleep(forTimeInterval: 0.05)
                guard let hold = self, !hold.stopped.withLock({ $0 }) else { return }
                guard ContinuousClock.now >= next else { continue }
                next = ContinuousClock.now + interval
                _ = try? client.keepAlive(lease: lease, overall: interval)
            }
        }
    }
}

/// One wait for the fleet lock, cancellable from another thread: the blocked etcd call goes
/// on until etcd answers, but the waiter is answered at once (``run(_:)``) and its lease
/// revoked, so its place in etcd's queue is gone; a hold that the call still returns later
/// is released.
final class LockAttempt: Sendable {
    private struct State {
        var cancelled = false
        var lease: Int64?
    }
    private let client: EtcdClient
    private let state = Locked(State())
    /// The waiter's answer: the blocked call's, or the cancellation's, whichever comes first.
    private let answer = FirstResult<EtcdLockHold?, VaultError>()

    init(client: EtcdClient) { self.client = client }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Records the lease being waited on; false when the attempt is already cancelled.
    func waiting(on lease: Int64) -> Bool {
        state.withLock { state in
            state.lease = lease
            return !state.cancelled
        }
    }

    /// Runs the blocking `body` on a thread of its own; returns its result, or (cancelled)
    /// at once, leaving the thread to finish and give back what it got.
    func run(_ body: @escaping @Sendable () throws(VaultError) -> EtcdLockHold?) async -> Result<EtcdLockHold?, VaultError> {
        Blocking.detach { [self] in
            let result: Result<EtcdLockHold?, VaultError>
            do throws(VaultError) {
                result = .success(try body())
            } catch {
                result = .failure(error)
            }
            if !answer.finish(result), case .success(let hold?) = result {
                Task { await hold.release() }  // answered already (cancelled): give the lock back
            }
        }
        return await withCheckedContinuation { answer.start($0) }
    }

    /// Stops the wait: the waiter is answered now and the lease revoked.
    func cancel() {
        let lease = state.withLock { state in
            state.cancelled = true
            return state.lease
        }
        answer.finish(.success(nil))
        if let lease { Blocking.detach { [client] in try? client.revoke(lease: lease, overall: .seconds(2)) } }
    }
}
