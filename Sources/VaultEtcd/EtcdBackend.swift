// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// `--backend etcd`: a fleet's store on etcd (``EtcdStore``). Never chosen by `auto`: a
/// program registers it (`BackendRegistry.register(EtcdBackend.self)`) and a user asks for it.
public enum EtcdBackend: StoreBackend {
    /// ``BackendKind/etcd``; see ``StoreBackend/kind``.
    public static let kind = BackendKind.etcd

    /// Usable when the context carries an ``EtcdConfiguration`` (in
    /// ``BackendContext/configurations`` under ``BackendKind/etcd``); it does not contact
    /// etcd (a store operation does, within its timeout). See ``StoreBackend/viability(_:probeTimeout:)``.
    public static func viability(_ context: BackendContext, probeTimeout: Duration) -> Viability {
        guard let configuration = context.configurations[.etcd] as? EtcdConfiguration else {
            return Viability(usable: false, reason: "no etcd configuration was given")
        }
        return Viability(usable: true, reason: "etcd at \(configuration.endpointList), prefix \(configuration.prefix)")
    }

    /// An ``EtcdStore`` on the context's ``EtcdConfiguration``, with its passphrase source,
    /// work factor for a new fleet and key cache; `.invalidInput` without a configuration.
    /// See ``StoreBackend/open(_:viability:)``.
    public static func open(_ context: BackendContext, viability: Viability?) throws(VaultError) -> any SecureStore {
        guard let configuration = context.configurations[.etcd] as? EtcdConfiguration else {
            throw .invalidInput("the etcd backend needs an EtcdConfiguration in the context's configurations")
        }
        return EtcdStore(
            client: try EtcdClient(configuration: configuration), passphrase: context.passphrase, kdf: context.kdf,
            keyCache: context.keyCache)
    }
}

extension EtcdStore: AccountLockingStore {
    /// The fleet's lock (``EtcdAccountLocking``); see ``AccountLockingStore/accountLocking``.
    public var accountLocking: any AccountLocking { EtcdAccountLocking(store: self) }
}
