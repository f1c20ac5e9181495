// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

/// `vault login --device` (RFC 8628) against the reference server; the person on the other
/// device is played through the server's in-process controls.
@Suite("vault login --device: the device authorization grant", .offThePool)
struct DeviceSignInCLITests {
    /// Starts `vault login --device` with stderr merged into the output the test can watch.
    func startDeviceLogin(_ fixture: SignInFixture, extra: [String] = []) throws -> ChildProcess {
        try ChildProcess(
            VaultProcess.vaultPath,
            [
                "login", "--server", fixture.url, "--account", "alice", "--provider", "oidc", "--issuer", fixture.url, "--client-id",
                SignInFixture.client, "--device",
            ] + extra,
            environment: fixture.auth.env, stderr: .intoStdout)
    }

    /// The user code vault printed (waits, bounded, for the whole announcement: its lines are
    /// separate writes, so the first may arrive alone).
    func userCode(_ process: ChildProcess) async throws -> String {
        let text = try #require(
            try await process.waitForOutput(timeout: 20) {
                $0.firstMatch(of: #/enter the code (\S+)/#) != nil && $0.contains("waiting for the sign-in")
            })
        return String(try #require(text.firstMatch(of: #/enter the code (\S+)/#)).1)
    }

    func waitForPolls(_ fixture: SignInFixture, atLeast count: Int) async throws {
        try await fixture.auth.wait(seconds: 30) { fixture.server.stats.devicePolls >= count }
        #expect(fixture.server.stats.devicePolls >= count)
    }

    @Test("pending, then slow_down (the next poll waits 5 s more), then approved: tokens stored, who signed in is shown")
    func pendingSlowDownApproved() async throws {
        try await withSignInFixture(deviceInterval: 1) { fixture in
            let process = try startDeviceLogin(fixture)
            let code = try await userCode(process)
            #expect(process.output.contains("\(fixture.url)/device"), "the verification URI is printed")
            #expect(process.output.contains("?user_code=\(code)"), "and the complete one")
            try await waitForPolls(fixture, atLeast: 1)  // answered authorization_pending
            #expect(fixture.server.requestSlowDown(userCode: code))
            try await waitForPolls(fixture, atLeast: 2)  // answered slow_down: the server's interval is now 6 s
            #expect(fixture.server.decideDevice(userCode: code, allowAs: "alice"))
            let result = try await process.finishAsync(timeout: 40)
            #expect(result.status == 0, "\(result.out)")
            #expect(result.out.contains("signed in: alice@vault.invalid"), "\(result.out)")
            // A client that ignored slow_down would have polled again before 6 s and been told to slow down again.
            #expect(fixture.server.stats.devicePolls == 3, "pending, slow_down, approved: \(fixture.server.stats.devicePolls) polls")
            fixture.auth.expectNoLeak(result)
            #expect(try await fixture.auth.request().status == 0)
        }
    }

    @Test("denied on the other device: exit 3, nothing stored")
    func denied() async throws {
        try await withSignInFixture(deviceInterval: 1) { fixture in
            let process = try startDeviceLogin(fixture)
            let code = try await userCode(process)
            #expect(fixture.server.decideDevice(userCode: code, allowAs: nil))
            let result = try await process.finishAsync(timeout: 30)
            #expect(result.status == 3, "\(result.out)")
            #expect(result.out.contains("the sign-in was denied"), "\(result.out)")
            #expect(try fixture.storedTokens() == nil)
        }
    }

    @Test(
        "nobody answers: exit 3 once the code expires, even from a server that keeps answering authorization_pending",
        arguments: [false, true])
    func expired(serverKeepsPending: Bool) async throws {
        try await withSignInFixture(deviceInterval: 1, deviceLifetime: 3, pendingAfterExpiry: serverKeepsPending) { fixture in
            // vault stops by itself: the test's bound (which records an issue) only ends a hang.
            let result = try await startDeviceLogin(fixture).finishAsync(timeout: 60)
            #expect(result.status == 3, "\(result.out)")
            #expect(result.out.contains("expired"), "\(result.out)")
            #expect(try fixture.storedTokens() == nil)
        }
    }

    @Test("a code that expires before the first interval has passed is still polled once, at its end")
    func intervalLongerThanTheCode() async throws {
        try await withSignInFixture(deviceInterval: 5, deviceLifetime: 2) { fixture in
            let result = try await startDeviceLogin(fixture).finishAsync(timeout: 30)
            #expect(result.status == 3 && result.out.contains("expired"), "\(result.out)")
            #expect(fixture.server.stats.devicePolls == 1)
        }
    }

    @Test("Ctrl-C while waiting: one line, exit 130, nothing stored")
    func interrupted() async throws {
        try await withSignInFixture(deviceInterval: 1) { fixture in
            let process = try startDeviceLogin(fixture)
            _ = try await userCode(process)
            let pid = ChildProcess.descendants(of: process.process.processIdentifier).first ?? process.process.processIdentifier
            kill(pid, SIGINT)
            let result = try await process.finishAsync(timeout: 20)
            #expect(result.status == 130, "\(result.out)")
            #expect(result.out.contains("sign-in cancelled; nothing was stored"), "\(result.out)")
            #expect(try fixture.storedTokens() == nil)
        }
    }
}
