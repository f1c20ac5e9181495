// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultStore

/// The device authorization grant (RFC 8628) for machines without a browser: ask for a
/// user code, show it, and poll the token endpoint until a person signs in elsewhere.
///
/// It polls at the server's `interval`, adds 5 s on each `slow_down` (§3.5), keeps waiting
/// on `authorization_pending`, and stops on `access_denied` or `expired_token`. It enforces
/// `expires_in` itself: a server that keeps answering `authorization_pending` past it does
/// not keep vault waiting, and a code that claims to live longer than an hour is waited
/// for an hour at most; the last wait is shortened so one poll still happens before the
/// end. Transient failures (5xx, timeouts) double the wait; the fifth in a row, or one
/// still standing at the end, is thrown as it is (not as "expired"). A 2xx answer whose
/// tokens vault cannot use ends it at once: the device code is spent, and polling again
/// would only redeem it again. Task cancellation stops it at once.
public struct DeviceSignIn: Sendable {
    /// The client and token endpoint polled.
    public let provider: OAuth2Provider
    /// The device authorization endpoint.
    public let deviceURL: URL
    /// An upper bound on the whole wait besides `expires_in` (nil: `expires_in` alone).
    public let timeout: Duration?

    /// A sign-in with `provider` at `deviceURL`; `.invalidRequest` when that URL fails ``URLPolicy``.
    public init(provider: OAuth2Provider, deviceURL: URL, timeout: Duration? = nil) throws(AuthError) {
        try URLPolicy.check(deviceURL)
        self.provider = provider
        self.deviceURL = deviceURL
        self.timeout = timeout
    }

    /// The longest wait for a person, whatever `expires_in` says: one hour.
    public static let longestWait: TimeInterval = 3600

    /// Runs the grant: `present` gets the codes to show (once); returns the tokens.
    public func run(present: @Sendable (DeviceAuthorization) -> Void) async throws(AuthError) -> TokenSet {
        let authorization = try await provider.requestDeviceAuthorization(at: deviceURL)
        present(authorization)
        let started = ContinuousClock.now
        var limit = Duration.milliseconds(Int64(min(authorization.expiresIn, Self.longestWait) * 1000))
        if let timeout, timeout < limit { limit = timeout }
        let deadline = started + limit
        var interval = authorization.interval
        var failures = 0
        var lastFailure: AuthError?
        while ContinuousClock.now < deadline {
            // The last wait is cut short so that one poll still happens before the code expires.
            let wait = min(Duration.milliseconds(Int64(interval * 1000)), deadline - ContinuousClock.now)
            do {
                try await Task.sleep(for: wait)
            } catch {
                throw .authentication("the sign-in was cancelled")
            }
            do throws(AuthError) {
                switch try await provider.pollDevice(authorization) {
                case .approved(let tokens): return tokens
                case .pending: break
                case .slowDown: interval += 5
                }
                failures = 0
                lastFailure = nil
            } catch  where error.isTransient && !Self.isSpentCode(error) {
                failures += 1
                lastFailure = error
                guard failures < 5 else { throw error }
                interval = min(interval * 2, 60)
            }
        }
        if let lastFailure { throw lastFailure }
        throw .authentication("the device code expired before anyone signed in", providerCode: "expired_token", remedy: .logInAgain)
    }

    /// True for the error of a 2xx token answer vault could not use: the server redeemed
    /// the code, so another poll would redeem it once more (and be refused).
    static func isSpentCode(_ error: AuthError) -> Bool {
        if case .server(let status, _) = error { return (200...299).contains(status) }
        return false
    }
}
