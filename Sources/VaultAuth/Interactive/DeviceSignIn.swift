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
/// for an hour at most. Transient failures (5xx, timeouts) double the wait, at most five
/// in a row. Task cancellation stops it at once.
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
        var interval = authorization.interval
        var failures = 0
        while true {
            let wait = Duration.milliseconds(Int64(interval * 1000))
            guard ContinuousClock.now + wait < started + limit else { break }
            do {
                try await Task.sleep(for: wait)
            } catch {
                throw .authentication("the sign-in was cancelled")
            }
            do throws(AuthError) {
                switch try await provider.pollDevice(authorization) {
                case .approved(let tokens): return tokens
                case .pending: failures = 0
                case .slowDown:
                    failures = 0
                    interval += 5
                }
            } catch  where error.isTransient && failures < 5 {
                failures += 1
                interval = min(interval * 2, 60)
            }
        }
        throw .authentication("the device code expired before anyone signed in; run vault login again", providerCode: "expired_token")
    }
}
