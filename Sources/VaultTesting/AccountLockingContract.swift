// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultStore

/// The contract every ``AccountLocking`` keeps (the one-machine `flock` and the fleet's
/// lease alike), one rule a function, for any locking (vault's own and other tools').
///
/// A rule takes two lockings that share their locks, `first` and `second` (two processes,
/// two machines; `second` may be `first` itself when one instance stands for all), takes
/// only locks of servers under `namespace`, and releases every lock it took, so rules may
/// run one after another on the same lockings. Failures are recorded with `#expect`, as
/// ``StoreContract``'s:
///
///     @Test(arguments: AccountLockingContract.Rule.allCases)
///     func keepsTheLockingContract(rule: AccountLockingContract.Rule) async throws {
///         try await rule.verify(MyLocking(), MyLocking())
///     }
public enum AccountLockingContract {
    /// The rules, in the order `verifyAll` checks them.
    public enum Rule: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case heldByOneAtATime
        case freedOnRelease
        case aTimeoutIsLockTimeout
        case waitingIsCancellable
        case accountsAreSeparate

        public var testDescription: String { rawValue }

        /// Checks this rule on `first` and `second` (see ``AccountLockingContract``). `timeout`
        /// is how long a wait that must fail waits: long enough for one round trip of the
        /// locking's backend on a busy machine.
        public func verify(
            _ first: some AccountLocking, _ second: some AccountLocking, namespace: String = "contract",
            timeout: Duration = .milliseconds(800)
        ) async throws {
            let server = "\(namespace).example.org"
            switch self {
            case .heldByOneAtATime: try await AccountLockingContract.heldByOneAtATime(first, second, server, timeout)
            case .freedOnRelease: try await AccountLockingContract.freedOnRelease(first, second, server, timeout)
            case .aTimeoutIsLockTimeout: try await AccountLockingContract.aTimeoutIsLockTimeout(first, second, server, timeout)
            case .waitingIsCancellable: try await AccountLockingContract.waitingIsCancellable(first, second, server, timeout)
            case .accountsAreSeparate: try await AccountLockingContract.accountsAreSeparate(first, second, server, timeout)
            }
        }
    }

    /// Checks every rule, one after another.
    public static func verifyAll(
        _ first: some AccountLocking, _ second: some AccountLocking, namespace: String = "contract",
        timeout: Duration = .milliseconds(800)
    ) async throws {
        for rule in Rule.allCases { try await rule.verify(first, second, namespace: namespace, timeout: timeout) }
    }

    /// How long a lock that is free may take to be granted (a backend's round trips on a
    /// busy machine).
    static let grant: Duration = .seconds(10)

    /// While one caller holds an account's lock, another's wait for it fails, and the
    /// holder still holds it; once released, the other gets it.
    static func heldByOneAtATime(
        _ first: some AccountLocking, _ second: some AccountLocking, _ server: String, _ timeout: Duration
    ) async throws {
        let hold = try await first.lock(server: server, account: "alice", timeout: grant)
        #expect(await waitFails(second, server, "alice", timeout), "a second caller got a held lock")
        #expect(await hold.isStillHeld(), "the first holder lost the lock while another waited")
        await hold.release()
        let next = try await second.lock(server: server, account: "alice", timeout: grant)
        await next.release()
    }

    /// A released lock is free at once for another caller; releasing twice is harmless.
    static func freedOnRelease(
        _ first: some AccountLocking, _ second: some AccountLocking, _ server: String, _ timeout: Duration
    ) async throws {
        let hold = try await first.lock(server: server, account: "alice", timeout: grant)
        let releasing = Task {
            try await Task.sleep(for: timeout / 2)
            await hold.release()
        }
        let start = ContinuousClock.now
        let next = try await second.lock(server: server, account: "alice", timeout: grant)
        #expect(ContinuousClock.now - start >= timeout / 4, "the lock was granted while still held")
        try await releasing.value
        await hold.release()
        await next.release()
        let again = try await first.lock(server: server, account: "alice", timeout: grant)
        await again.release()
    }

    /// A wait for a held lock gives up after about `timeout`, with `.lockTimeout`.
    static func aTimeoutIsLockTimeout(
        _ first: some AccountLocking, _ second: some AccountLocking, _ server: String, _ timeout: Duration
    ) async throws {
        let hold = try await first.lock(server: server, account: "alice", timeout: grant)
        let start = ContinuousClock.now
        #expect(await waitFails(second, server, "alice", timeout), "a second caller got a held lock")
        let waited = ContinuousClock.now - start
        #expect(waited >= timeout / 2, "gave up after \(waited), before the timeout of \(timeout)")
        #expect(waited < timeout + grant, "gave up after \(waited), long after the timeout of \(timeout)")
        await hold.release()
    }

    /// A wait for a held lock ends soon after its task is cancelled, with `.lockTimeout`,
    /// long before its timeout; the lock is not taken by the cancelled waiter.
    static func waitingIsCancellable(
        _ first: some AccountLocking, _ second: some AccountLocking, _ server: String, _ timeout: Duration
    ) async throws {
        let hold = try await first.lock(server: server, account: "alice", timeout: grant)
        let patience: Duration = .seconds(60)
        // What went wrong, or nil: the wait ended with a lock timeout.
        let waiter = Task { () async -> String? in
            do throws(LockError) {
                let stolen = try await second.lock(server: server, account: "alice", timeout: patience)
                await stolen.release()
                return "a cancelled waiter got a held lock"
            } catch {
                return isLockTimeout(error) ? nil : "a cancelled wait threw \(error), not a lock timeout"
            }
        }
        try await Task.sleep(for: timeout / 2)
        let start = ContinuousClock.now
        waiter.cancel()
        let problem = await waiter.value
        let waited = ContinuousClock.now - start
        #expect(problem == nil, "\(problem ?? "")")
        #expect(waited < grant, "a cancelled wait went on for \(waited)")
        await hold.release()
        let next = try await second.lock(server: server, account: "alice", timeout: grant)
        await next.release()
    }

    /// The lock of one account is not the lock of another, nor of the same account on
    /// another server.
    static func accountsAreSeparate(
        _ first: some AccountLocking, _ second: some AccountLocking, _ server: String, _ timeout: Duration
    ) async throws {
        let hold = try await first.lock(server: server, account: "alice", timeout: grant)
        let bob = try await second.lock(server: server, account: "bob", timeout: grant)
        let elsewhere = try await second.lock(server: "other-\(server)", account: "alice", timeout: grant)
        await elsewhere.release()
        await bob.release()
        await hold.release()
    }

    /// Waits `timeout` for the lock; true when the wait failed with a lock timeout. A lock
    /// granted is released and counts as false; another error is recorded and counts as false.
    private static func waitFails(
        _ locking: some AccountLocking, _ server: String, _ account: String, _ timeout: Duration
    ) async
        -> Bool
    {
        do throws(LockError) {
            let stolen = try await locking.lock(server: server, account: account, timeout: timeout)
            await stolen.release()
            return false
        } catch {
            #expect(isLockTimeout(error), "waiting for a held lock threw \(error), not a lock timeout")
            return isLockTimeout(error)
        }
    }

    /// What ``AccountLocking/lock(server:account:timeout:)`` throws.
    public typealias LockError = VaultError

    /// Whether `error` is the lock timeout (whatever the message) and not, say, a network error.
    private static func isLockTimeout(_ error: LockError) -> Bool {
        if case .lockTimeout = error { return true }
        return false
    }
}
