// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultSync

/// What a call that waits for etcd says, once per process, when it has waited
/// ``delay``: a program installs where it goes (`vault` does on a terminal only, as its
/// HTTP wait notice), and nothing is said otherwise. A refused connection everywhere is not
/// waited for at all (`EtcdClient` fails at once).
public enum EtcdWaitNotice {
    /// How long a call waits before the notice.
    public static let delay: Duration = .seconds(2)

    private static let state = Locked<(say: (@Sendable (String) -> Void)?, said: Bool)>((nil, false))

    /// Where the notice goes from now on: `say` gets one line.
    public static func install(_ say: @escaping @Sendable (String) -> Void) {
        state.withLock { $0.say = say }
    }

    /// Says, the first time only, that etcd is waited for, with the endpoints tried so far
    /// and what each answered last, and how long the call may still take.
    static func say(_ tried: [(endpoint: String, reason: String)], within left: Duration) {
        let say: (@Sendable (String) -> Void)? = state.withLock { state in
            guard !state.said, let say = state.say else { return nil }
            state.said = true
            return say
        }
        guard let say else { return }
        var last: [String: String] = [:]
        var order: [String] = []
        for (endpoint, reason) in tried {
            if last[endpoint] == nil { order.append(endpoint) }
            last[endpoint] = reason
        }
        let reasons = order.map { "\($0) (\(last[$0] ?? ""))" }.joined(separator: ", ")
        let seconds = Int(Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18 + 0.5)
        say("waiting for etcd (at most \(seconds) s more): \(reasons)")
    }
}
