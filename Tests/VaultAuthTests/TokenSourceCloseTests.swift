// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultStore
import VaultSync
import VaultTestSupport
import VaultTesting

@testable import VaultAuth

/// `TokenSource.close()`, what an agent calls before it exits: no refresh token is spent
/// after it, and a refresh already sent is stored before it returns, so an exit never
/// loses a rotated refresh token. Fake provider, clock moved by hand.
@Suite("TokenSource.close (fakes)", .offThePool)
struct TokenSourceCloseTests {
    typealias Fixture = RefreshAheadTests.Fixture

    @Test("close waits for a refresh already sent: when it returns, the store holds the new tokens")
    func closeWaitsForTheRefreshSent() async throws {
        let f = try await Fixture()
        let source = f.source()
        _ = try await source.token()
        let gate = Gate()
        f.provider.hold(at: gate)
        let refresh = Task { try? await source.refreshAhead() }
        #expect(await eventually { f.provider.refreshCount == 1 }, "the refresh was sent")
        let closed = Locked(false)
        let closing = Task {
            await source.close()
            closed.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(!closed.withLock { $0 }, "close returned while the provider's answer was outstanding")
        gate.open()
        await closing.value
        #expect(try await f.account.loadTokens()?.accessToken == Secret("access-1"), "the rotation was stored before close returned")
        #expect(await refresh.value?.accessToken == Secret("access-1"))
    }

    @Test("after close, no refresh token is spent: a refresh ahead and one at expiry both end with a one-line error")
    func nothingSpentAfterClose() async throws {
        let f = try await Fixture()
        let source = f.source()
        _ = try await source.token()
        await source.close()
        let ahead = await caughtError { () async throws(AuthError) in try await source.refreshAhead() }
        guard case .lockTimeout(let why)? = ahead else {
            Issue.record("expected lockTimeout, got \(String(describing: ahead))")
            return
        }
        #expect(why.contains("stopping") && !why.contains("\n"), "\(why)")
        f.clock.advance(by: 120)
        let atExpiry = await caughtError { () async throws(AuthError) in _ = try await source.token() }
        #expect(atExpiry != nil)
        #expect(f.provider.refreshCount == 0 && f.provider.presentedRefreshTokens.isEmpty)
        #expect(try await f.account.loadTokens()?.accessToken == Secret("access-0"), "the stored tokens are untouched")
    }

    @Test("tokens the store refused earlier are offered to it once more at close")
    func unsavedTokensStoredAtClose() async throws {
        let store = FaultyStore()
        let clock = ManualClock()
        let provider = FakeProvider(clock: clock, lifetime: 60)
        let account = AccountItems(store: store, server: "https://api.example.test", account: "ann")
        try await account.saveTokens(provider.initialTokens())
        let source = TokenSource(account: account, provider: provider, clock: clock, configuration: Requester.Configuration(lock: .inProcessOnly))
        store.faults = [FaultyStore.Fault(.save, kind: .tokens, .fail(.backendUnavailable("disk full (test)")))]
        #expect(try await source.refreshAhead().accessToken == Secret("access-1"))
        #expect(try await account.loadTokens()?.accessToken == Secret("access-0"), "the save was refused: in memory only")
        store.faults = []
        await source.close()
        #expect(try await account.loadTokens()?.accessToken == Secret("access-1"), "close stored the rotated tokens")
        #expect(provider.refreshCount == 1)
    }

    @Test("a refresh waiting for another process's lock gives up at close, and spends nothing")
    func waitingForTheLockEndsAtClose() async throws {
        try await withTemporaryDirectory("token-source-close") { directory in
            let f = try await Fixture()
            let source = f.source(lockDirectory: directory)
            _ = try await source.token()
            let other = try await FileAccountLocking(directory: directory)
                .hold(server: f.account.server, account: f.account.account, timeout: .seconds(5))
            let refresh = Task { () -> AuthError? in
                await caughtError { () async throws(AuthError) in try await source.refreshAhead() }
            }
            try await Task.sleep(for: .milliseconds(300))
            let started = ContinuousClock.now
            await source.close()
            let error = await refresh.value
            // The lock wait alone would last the configuration's 60 s; 10 s is a bound for a
            // hang on a loaded machine, not a measure of how fast close is.
            #expect(ContinuousClock.now - started < Sanitizer.scaled(.seconds(10)), "the wait for the lock did not end at close")
            guard case .lockTimeout(let why)? = error else {
                Issue.record("expected lockTimeout, got \(String(describing: error))")
                await other.release()
                return
            }
            #expect(why.contains("stopping"), "\(why)")
            #expect(f.provider.refreshCount == 0)
            await other.release()
        }
    }
}
