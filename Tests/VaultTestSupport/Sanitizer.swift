// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// What the tests know of a sanitized run: `Scripts/test --sanitize thread|address` builds
/// everything with ThreadSanitizer or AddressSanitizer and sets `VAULT_TEST_SANITIZER`.
///
/// Sanitized code runs 2 to 15 times slower, so a test's bound on how long something
/// *may* take (a deadline, a "finished within") widens through `scaled(_:)`; a bound on
/// how long something *must* take (a wait that has to happen) stays as it is.
public enum Sanitizer {
    /// `thread` or `address` in a sanitized run, nil in a plain one.
    public static let name: String? = {
        let value = ProcessInfo.processInfo.environment["VAULT_TEST_SANITIZER"] ?? ""
        return value.isEmpty ? nil : value
    }()

    /// How many times longer an upper time bound is in this run: 1 in a plain run.
    public static let slowdown: Int = {
        switch name {
        case nil: 1
        case "address": 3
        default: 5  // ThreadSanitizer: 5 to 15 times slower
        }
    }()

    /// `bound`, widened by `slowdown` in a sanitized run (the same in a plain run).
    public static func scaled(_ bound: Duration) -> Duration { bound * slowdown }

    /// `bound` seconds, widened by `slowdown` in a sanitized run.
    public static func scaled(_ bound: Double) -> Double { bound * Double(slowdown) }

    /// The exit status of a sanitized process that reported (`exitcode=66` in
    /// `TSAN_OPTIONS` and `ASAN_OPTIONS`, set by Scripts/test).
    public static let reportStatus: Int32 = 66

    /// The variables a sanitized child needs to report as the run asks (where to, what is
    /// suppressed, which failures end it): those of this process, for children started
    /// with an environment of their own (`SpawnedProcess` adds them). Empty in a plain run.
    /// `TEST_SANITIZER_SLOWDOWN` carries `slowdown` to helpers that vault starts itself
    /// (the test browser), which never see a `VAULT_*` variable.
    public static let childEnvironment: [String: String] = {
        let names = ["VAULT_TEST_SANITIZER", "TSAN_OPTIONS", "ASAN_OPTIONS", "UBSAN_OPTIONS", "SWIFT_BACKTRACE"]
        let environment = ProcessInfo.processInfo.environment
        guard environment["VAULT_TEST_SANITIZER"] != nil else { return [:] }
        return environment.filter { names.contains($0.key) }.merging(["TEST_SANITIZER_SLOWDOWN": String(slowdown)]) { $1 }
    }()
}
