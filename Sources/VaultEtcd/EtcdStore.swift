// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto
import VaultEtcdFormat
import VaultStore
import VaultSync

/// A fleet's shared store on etcd, end-to-end encrypted: etcd and whoever administers it see one
/// parameters record and opaque items (``FleetFormat``), never a server, an account, a label or a
/// secret; only `params`, `items/` and `locks/` (``EtcdAccountLocking``) under
/// ``EtcdConfiguration/prefix`` are read or written. The passphrase (``PassphraseSource``) is asked
/// for at most once, when the keys are first needed, with the file backend's key cache rules
/// (``KeyUnlocker``). Every write is one transaction guarded by the parameters record's `mod_revision`;
/// calls block, each within ``EtcdConfiguration/timeout``, and a fleet without quorum is
/// `.backendUnavailable`. Why: docs/fleet.md, "What is in etcd" and "How it behaves".
public final class EtcdStore: KeyDroppingStore {
    /// The connection to etcd.
    public let client: EtcdClient
    /// The passphrase (once per instance) and the key cache.
    private let unlocker: KeyUnlocker
    private let newFleetKDF: KDFParameters
    private let state = Locked(State())
    /// Held while the fleet's keys are read or created, so threads that first use this
    /// instance at the same moment derive the keys once (scrypt takes 128 MiB and a third
    /// of a second each time), not once each.
    private let opening = Locked(())

    private struct State {
        var keys: FleetFormat.Keys?
        /// The parameters record the keys belong to, and its revision.
        var record: [UInt8]?
        var revision: Int64 = 0
        /// The revision at which this instance last read or wrote each item (0: it found
        /// none), so a write over an item another machine changed since is refused.
        var observed: [String: Int64] = [:]
        /// Set by ``dropKeys()``: no key is derived or used any more.
        var dropped = false
    }

    /// A store on `client`'s etcd under its prefix.
    /// - Parameters:
    ///   - passphrase: the fleet passphrase, asked when the keys are first needed.
    ///   - kdf: the work factor when this store creates the fleet's parameters record.
    ///   - keyCache: where the derived key is kept between processes (the file backend's
    ///     kernel-keyring cache, `VAULT_KEY_CACHE_TTL`), or nil.
    public init(client: EtcdClient, passphrase: PassphraseSource, kdf: KDFParameters = .default, keyCache: KeyCachePolicy? = nil) {
        self.client = client
        self.unlocker = KeyUnlocker(passphrase: passphrase, keyCache: keyCache)
        self.newFleetKDF = kdf
    }

    /// Where derived keys are kept between processes, or nil.
    public var keyCache: KeyCachePolicy? { unlocker.keyCache }

    /// `"etcd"`; see ``SecureStore/backendName``.
    public var backendName: String { "etcd" }

    /// The prefix every key of this store starts with.
    public var prefix: String { client.configuration.prefix }
    var parametersKey: String { prefix + "params" }
    var itemsPrefix: String { prefix + "items/" }
    var locksPrefix: String { prefix + "locks/" }

    /// Seals and writes the item in one transaction guarded by the parameters record and,
    /// when this instance has read the item, by the revision it read: an item another
    /// machine changed since is not overwritten (``VaultError/conflict(_:)``; read it again).
    /// Creates the fleet (asking for a new passphrase) when there is none. See ``SecureStore/save(_:)``.
    public func save(_ credential: Credential) throws(VaultError) {
        let key = try credential.key.validated()
        var fleet = try fleet(create: true)!
        for _ in 0..<5 {
            let itemKey = itemsPrefix + FleetFormat.name(of: key, keys: fleet.keys)
            let value = try FleetFormat.seal(
                Credential(key: key, secret: credential.secret, label: credential.label), keys: fleet.keys, itemKey: itemKey)
            if try write(.put(itemKey, value), itemKey: itemKey, key: key, fleet: &fleet) { return }
        }
        throw .backendUnavailable("the fleet's parameters record in etcd kept changing; nothing was saved")
    }

    /// The item, or nil (also when the fleet has no parameters record yet). `.corrupted`
    /// for a value that fails authentication. See ``SecureStore/load(_:)``.
    public func load(_ key: CredentialKey) throws(VaultError) -> Credential? {
        guard let fleet = try fleet(create: false) else { return nil }
        let itemKey = itemsPrefix + FleetFormat.name(of: key, keys: fleet.keys)
        let entry = try client.get(itemKey)
        state.withLock { $0.observed[itemKey] = entry?.modRevision ?? 0 }
        guard let entry else { return nil }
        let credential = try FleetFormat.open(entry.value, keys: fleet.keys, itemKey: itemKey)
        guard credential.key == key else { throw .corrupted("the etcd value at \(itemKey) holds another item") }
        return credential
    }

    /// Deletes the item's key (a transaction guarded like ``save(_:)``); nothing to do in an
    /// empty fleet. See ``SecureStore/remove(_:)``.
    public func remove(_ key: CredentialKey) throws(VaultError) {
        guard var fleet = try fleet(create: false) else { return }
        for _ in 0..<5 {
            let itemKey = itemsPrefix + FleetFormat.name(of: key, keys: fleet.keys)
            if try write(.delete(itemKey), itemKey: itemKey, key: key, fleet: &fleet) { return }
        }
        throw .backendUnavailable("the fleet's parameters record in etcd kept changing; nothing was removed")
    }

    /// One guarded write: true when done; false when the parameters record changed (then
    /// `fleet` is the new one, and the caller seals again). Throws ``VaultError/conflict(_:)``
    /// when the item changed since this instance read it.
    private func write(_ write: EtcdClient.Write, itemKey: String, key: CredentialKey, fleet: inout Fleet) throws(VaultError) -> Bool {
        var guards = [(key: parametersKey, revision: fleet.revision)]
        let expected = state.withLock { $0.observed[itemKey] }
        if let expected { guards.append((itemKey, expected)) }
        switch try client.write(write, guards: guards) {
        case .written(let revision):
            state.withLock { state in
                if case .delete = write { state.observed[itemKey] = 0 } else { state.observed[itemKey] = revision }
            }
            return true
        case .conflict(let current):
            if current.first??.modRevision != fleet.revision {
                guard let adopted = try adopt(current.first ?? nil, create: true) else { return true }
                fleet = adopted
                return false
            }
            state.withLock { $0.observed[itemKey] = nil }
            throw .conflict(
                "\(key) was changed by another process or machine after this one read it; nothing was written (read it again)")
        }
    }

    /// Every item under the prefix, opened, without secrets; `.corrupted` when any value
    /// fails authentication. See ``SecureStore/list(server:)``.
    public func list(server: String?) throws(VaultError) -> [CredentialInfo] {
        guard let fleet = try fleet(create: false) else { return [] }
        var infos: [CredentialInfo] = []
        for entry in try client.list(prefix: itemsPrefix) {
            let itemKey = String(decoding: entry.key, as: UTF8.self)
            // Only keys of vault's shape (a hidden name) are items; anything else under the
            // prefix (another program's key, a fleet nested under this prefix) is not ours.
            guard FleetFormat.isItemName(itemKey.dropFirst(itemsPrefix.count)) else { continue }
            let credential = try FleetFormat.open(entry.value, keys: fleet.keys, itemKey: itemKey)
            guard itemKey == itemsPrefix + FleetFormat.name(of: credential.key, keys: fleet.keys) else {
                throw .corrupted("the etcd value at \(itemKey) holds another item")
            }
            if server == nil || credential.server == server { infos.append(credential.info) }
        }
        return infos.sorted()
    }

    /// The hidden name of an account's refresh lock (creating the fleet's parameters record
    /// when there is none, so every machine names it alike).
    func lockName(server: String, account: String) throws(VaultError) -> String {
        let fleet = try fleet(create: true)!
        return locksPrefix + FleetFormat.lockName(server: server, account: account, keys: fleet.keys)
    }

    // MARK: - The fleet's keys

    private struct Fleet {
        var keys: FleetFormat.Keys
        var revision: Int64
    }

    /// The keys and the parameters record's revision: kept, else read from etcd, else
    /// (with `create`) a new record written; nil for an empty fleet without `create`.
    private func fleet(create: Bool) throws(VaultError) -> Fleet? {
        if state.withLock({ $0.dropped }) { throw VaultError.keysDropped }
        if let kept = keptFleet() { return kept }
        return try opening.withLock { _ throws(VaultError) -> Fleet? in
            if state.withLock({ $0.dropped }) { throw VaultError.keysDropped }
            if let kept = keptFleet() { return kept }
            return try adopt(try client.get(parametersKey), create: create)
        }
    }

    /// Drops the fleet's keys for good (``KeyDroppingStore``, an agent's lock).
    public func dropKeys() {
        state.withLock { state in
            state.dropped = true
            state.keys = nil
        }
    }

    private func keptFleet() -> Fleet? {
        state.withLock { state in state.keys.map { Fleet(keys: $0, revision: state.revision) } }
    }

    /// Takes `found` (the parameters record as etcd has it now, or nil when there is none)
    /// as the fleet's, deriving its keys unless they are already known. Creating the record
    /// races other machines: a lost race takes theirs, in at most five rounds (then
    /// `.backendUnavailable`), never by recursion.
    private func adopt(_ found: EtcdEntry?, create: Bool) throws(VaultError) -> Fleet? {
        var next = found
        for _ in 0..<Self.adoptionRounds {
            guard let entry = next else {
                // Items without a parameters record: it was deleted. Starting a new fleet over
                // them (or calling the fleet empty) would orphan them for good.
                let existing = try client.list(prefix: itemsPrefix, keysOnly: true)
                if existing.contains(where: { FleetFormat.isItemName(String(decoding: $0.key, as: UTF8.self).dropFirst(itemsPrefix.count)) }) {
                    throw .corrupted(
                        "the fleet's parameters record \(parametersKey) is missing but items remain under \(itemsPrefix): "
                            + "it was deleted; restore it (etcd snapshot or backup); vault will not start a new fleet over them")
                }
                guard create else {
                    state.withLock { $0.keys = nil }
                    return nil
                }
                let parameters = FleetFormat.Parameters(kdf: newFleetKDF, salt: VaultFileFormat.newSalt())
                let passphrase = try unlocker.passphrase(for: .create)
                let master = try parameters.kdf.deriveKeys(passphrase: passphrase, salt: parameters.salt).master
                let keys = FleetFormat.Keys(master: master)
                let record = FleetFormat.record(parameters, keys: keys, recordKey: parametersKey)
                switch try client.write(.put(parametersKey, record), guards: [(parametersKey, 0)]) {
                case .written(let revision):
                    unlocker.keep(master, cacheName: cacheName(record: record))
                    return remember(record: record, keys: keys, revision: revision)
                case .conflict(let raced):
                    // Another machine created the fleet meanwhile: take theirs, next round.
                    next = raced.first ?? nil
                    continue
                }
            }
            if let kept = state.withLock({ state in state.record == entry.value ? state.keys : nil }) {
                return remember(record: entry.value, keys: kept, revision: entry.modRevision)
            }
            let parameters = try FleetFormat.parse(entry.value)
            // The key cache first, then the passphrase; one that does not verify the record
            // is `.wrongPassphrase` (``KeyUnlocker``).
            let keys = try unlocker.unlock(
                kdf: parameters.kdf, salt: parameters.salt, cacheName: cacheName(record: entry.value),
                notice: "the fleet key of \(prefix) came from the key cache"
            ) { master -> FleetFormat.Keys? in
                let keys = FleetFormat.Keys(master: master)
                return FleetFormat.verify(entry.value, keys: keys, recordKey: parametersKey) ? keys : nil
            }.opened
            return remember(record: entry.value, keys: keys, revision: entry.modRevision)
        }
        throw .backendUnavailable("the fleet's parameters record in etcd kept changing")
    }

    /// How many times ``adopt(_:create:)`` reads or races for the parameters record.
    static let adoptionRounds = 5

    /// The key cache's name for the fleet of `record` on the cluster that answered, or nil
    /// (no cache then) when etcd did not say which cluster it is.
    private func cacheName(record: [UInt8]) -> String? {
        client.clusterID.map { FleetFormat.cacheName(clusterID: $0, prefix: prefix, record: record) }
    }

    private func remember(record: [UInt8], keys: FleetFormat.Keys, revision: Int64) -> Fleet {
        state.withLock { state in
            state.record = record
            state.keys = keys
            state.revision = revision
        }
        return Fleet(keys: keys, revision: revision)
    }
}
