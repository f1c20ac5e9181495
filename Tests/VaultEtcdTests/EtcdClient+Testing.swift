// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

@testable import VaultEtcd

extension EtcdClient {
    /// Writes `value` at `key` only if `guardKey` was last written at `revision` (0: it
    /// does not exist), as an etcd administrator or another program could. Returns nil
    /// when written, else the current entry at `guardKey`.
    func put(_ key: String, _ value: [UInt8], ifRevisionOf guardKey: String, is revision: Int64) throws(VaultError) -> EtcdEntry?? {
        switch try write(.put(key, value), guards: [(guardKey, revision)]) {
        case .written: return .none
        case .conflict(let current): return .some(current.first ?? nil)
        }
    }
}
