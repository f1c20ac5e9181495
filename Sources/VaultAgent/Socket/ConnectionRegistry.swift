// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import NIOCore
import VaultSync

/// The connections the server has open (so a shutdown can close the stragglers), the
/// bound on their number, and the uids already logged as refused (each logged once).
final class ConnectionRegistry: Sendable {
    private struct State {
        var open: [ObjectIdentifier: any Channel] = [:]
        var refusedUIDs: Set<UInt32> = []
        var overLimitLogged = false
    }

    private let state = Locked(State())
    let maximum: Int

    init(maximum: Int) {
        self.maximum = maximum
    }

    /// Adds `channel` unless `maximum` are open; `overLimitFirst` is true the first time
    /// a connection is turned away since the count was last under the bound.
    func admit(_ channel: any Channel) -> (admitted: Bool, overLimitFirst: Bool) {
        state.withLock { state in
            guard state.open.count < maximum else {
                defer { state.overLimitLogged = true }
                return (false, !state.overLimitLogged)
            }
            state.open[ObjectIdentifier(channel)] = channel
            if state.open.count < maximum * 9 / 10 { state.overLimitLogged = false }
            return (true, false)
        }
    }

    func remove(_ channel: any Channel) {
        _ = state.withLock { $0.open.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// True the first time `uid` is refused.
    func firstRefusal(of uid: UInt32) -> Bool {
        state.withLock { $0.refusedUIDs.insert(uid).inserted }
    }

    var count: Int { state.withLock { $0.open.count } }

    /// Closes every open connection (a shutdown past its bound).
    func closeAll() {
        let channels = state.withLock { Array($0.open.values) }
        for channel in channels { channel.close(promise: nil) }
    }
}
