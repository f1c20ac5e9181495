// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore
import VaultSync

/// How the command makes the typed configuration of a backend that lives in another module
/// (etcd's `EtcdConfiguration`, from the `--etcd-…` options and `VAULT_ETCD_*`): the
/// program that links the backend registers its maker at start, beside
/// `BackendRegistry.register`. ``StoreConfiguration/openingContext(for:addingCachedKeys:)``
/// puts what it makes in ``BackendContext/configurations``.
package enum BackendConfigurations {
    /// Makes a backend's configuration from the options and variables; `.invalidInput`,
    /// worded with the options, for a bad one.
    package typealias Maker = @Sendable (StoreConfiguration) throws(VaultError) -> any Sendable

    private static let makers = Locked<[BackendKind: Maker]>([:])

    /// Makes `maker` the one of `kind`.
    package static func register(_ kind: BackendKind, _ maker: @escaping Maker) {
        makers.withLock { $0[kind] = maker }
    }

    /// The configuration of the backend of `kind` for `options`, or nil when no maker is registered.
    package static func make(_ kind: BackendKind, from options: StoreConfiguration) throws(VaultError) -> (any Sendable)? {
        guard let maker = makers.withLock({ $0[kind] }) else { return nil }
        return try maker(options)
    }
}
