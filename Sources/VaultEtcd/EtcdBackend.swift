// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// `--backend etcd`: a fleet's store on etcd (``EtcdStore``). Never chosen by `auto`: a
/// program registers it (`BackendRegistry.register(EtcdBackend.self)`) and a user asks for it.
public enum EtcdBackend: StoreBackend {
    /// ``BackendKind/etcd``; see ``StoreBackend/kind``.
    public static let kind = BackendKind.etcd

    /// Usable when the endpoints are configured; it does not contact etcd (a store
    /// operation does, within its timeout). See ``StoreBackend/viability(environment:probeTimeout:)``.
    public static func viability(environment: [String: String], probeTimeout: Duration) -> Viability {
        do {
            let configuration = try EtcdConfiguration.from(environment: environment)
            return Viability(usable: true, reason: "etcd at \(configuration.endpointList), prefix \(configuration.prefix)")
        } catch {
            return Viability(usable: false, reason: error.description)
        }
    }

    /// An ``EtcdStore`` with the file backend's passphrase sources and work factor for a new
    /// fleet; `.invalidInput` for a bad configuration. See ``StoreBackend/open(_:viability:)``.
    public static func open(_ context: BackendContext, viability: Viability?) throws(VaultError) -> any SecureStore {
        let environment = context.environment
        let client = try EtcdClient(configuration: try EtcdConfiguration.from(environment: environment))
        return EtcdStore(
            client: client,
            passphrase: .standard(file: context.passphraseFile, environment: environment, prompter: context.prompter),
            kdf: .forNewFiles(environment: environment), keyCache: try KeyCachePolicy.from(context))
    }
}

extension EtcdStore: AccountLockingStore {
    /// The fleet's lock (``EtcdAccountLocking``); see ``AccountLockingStore/accountLocking``.
    public var accountLocking: any AccountLocking { EtcdAccountLocking(store: self) }
}
