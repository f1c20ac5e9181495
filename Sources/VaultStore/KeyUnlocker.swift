// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto
import VaultSync

/// How a vault protected by a passphrase (the encrypted file, a fleet on etcd) finds its master
/// key, in ``unlock(kdf:salt:cacheName:notice:mayAsk:asksAgain:open:)``: the passphrase asked for
/// at most once per instance, the key cache (``KeyCachePolicy``) tried first, scrypt otherwise,
/// and every key checked by `open` before it is used. A given passphrase must be the kept key's
/// (``CachedVaultKey/admits(_:)``, one HMAC) or is derived as without a cache, so a wrong or
/// former one never opens the vault; a refused one is forgotten (`.wrongPassphrase`) unless the
/// source asks again (``PassphraseSource/passphraseAfterRefusal(attempt:)``). A derived key is
/// kept when ``KeyCachePolicy/storesNewKeys``. The rule step by step: docs/unattended.md, "The key cache".
public final class KeyUnlocker: Sendable {
    /// Where the passphrase comes from.
    public let source: PassphraseSource
    /// Where derived keys are kept between processes, or nil.
    public let keyCache: KeyCachePolicy?
    private let known = Locked<Secret?>(nil)

    /// Where an unlocked key came from.
    public enum Origin: Sendable, Equatable {
        /// The key cache.
        case keyCache
        /// scrypt, from the passphrase.
        case derived
    }

    /// An unlocker asking `passphrase` and keeping keys in `keyCache` (nil: nowhere).
    public init(passphrase: PassphraseSource, keyCache: KeyCachePolicy?) {
        self.source = passphrase
        self.keyCache = keyCache
    }

    /// The passphrase this instance knows (given, asked for, or ``remember(_:)``ed), or nil.
    public var knownPassphrase: Secret? { known.withLock { $0 } }

    /// Makes `passphrase` the known one (after a change of passphrase).
    public func remember(_ passphrase: Secret) { known.withLock { $0 = passphrase } }

    /// Forgets the known passphrase (after a refusal): the next need asks the source again.
    public func forgetPassphrase() { known.withLock { $0 = nil } }

    /// The passphrase known already, else the source's for `purpose` (remembered). Without
    /// `mayAsk` (the caller holds a lock no prompt may hold up) and with none known, it asks
    /// nobody: `.backendUnavailable`, the vault was re-keyed while this ran.
    public func passphrase(for purpose: PassphrasePurpose, mayAsk: Bool = true) throws(VaultError) -> Secret {
        if let known = knownPassphrase { return known }
        guard mayAsk else {
            throw .backendUnavailable("the vault file was re-keyed by another process while this command ran; run it again")
        }
        let passphrase = try source.passphrase(for: purpose)
        remember(passphrase)
        return passphrase
    }

    /// The passphrase known, else the one given without a prompt
    /// (``PassphraseSource/givenPassphrase()``, remembered); nil when only a prompt is left.
    public func givenPassphrase() throws(VaultError) -> Secret? {
        if let known = knownPassphrase { return known }
        guard let given = try source.givenPassphrase() else { return nil }
        remember(given)
        return given
    }

    /// The master key of a vault whose key is derived with `kdf` and `salt`, and what `open`
    /// made of it, by the rule above. `open` returns nil for a key that is not the vault's
    /// (and throws for anything else); `cacheName` is the vault's name in the key cache (nil:
    /// no cache for it); `notice` is told (``KeyCachePolicy/notice``) when the key came from
    /// the cache. See ``passphrase(for:mayAsk:)`` for `mayAsk`.
    public func unlock<Opened>(
        kdf: KDFParameters, salt: [UInt8], cacheName: String?, notice: String, mayAsk: Bool = true, asksAgain: Bool = false,
        open: (SymmetricKey) throws(VaultError) -> Opened?
    ) throws(VaultError) -> (opened: Opened, master: SymmetricKey, origin: Origin) {
        if let keyCache, let cacheName, let payload = keyCache.cache.load(cacheName), let kept = CachedVaultKey(payload: payload) {
            let master = SymmetricKey(data: kept.master)
            if let opened = try open(master) {
                if try givenPassphrase().map(kept.admits) ?? true {
                    keyCache.notice?(notice)
                    return (opened, master, .keyCache)
                }
            } else {
                // A kept key that does not open the vault is dropped; the passphrase decides.
                keyCache.cache.remove(cacheName)
            }
        }
        let passphrase = try passphrase(for: .unlock, mayAsk: mayAsk)
        let master = try kdf.deriveKeys(passphrase: passphrase, salt: salt).master
        if let opened = try open(master) {
            keep(master, cacheName: cacheName)
            return (opened, master, .derived)
        }
        forgetPassphrase()
        var attempt = 1
        while asksAgain, mayAsk, let again = try source.passphraseAfterRefusal(attempt: attempt) {
            attempt += 1
            let master = try kdf.deriveKeys(passphrase: again, salt: salt).master
            if let opened = try open(master) {
                remember(again)
                keep(master, cacheName: cacheName)
                return (opened, master, .derived)
            }
        }
        throw .wrongPassphrase
    }

    /// Keeps `master`, derived from the known passphrase, in the cache under `cacheName`
    /// with the passphrase's verifier, when there is a cache that adds keys, a name and a
    /// known passphrase; nothing happens otherwise.
    public func keep(_ master: SymmetricKey, cacheName: String?) {
        guard let keyCache, keyCache.storesNewKeys, let cacheName, let passphrase = knownPassphrase else { return }
        let entry = CachedVaultKey(master: master.withUnsafeBytes { Array($0) }, passphrase: passphrase)
        keyCache.cache.store(cacheName, key: entry.payload, lifetime: keyCache.lifetime)
    }

    /// Makes sure the passphrase is known and is the one `master` was derived from with
    /// `kdf` and `salt` (a vault opened with a kept key may not know it yet): given or asked
    /// for now, checked by deriving the key. `.wrongPassphrase` when it is not.
    public func confirmPassphrase(of master: SymmetricKey, kdf: KDFParameters, salt: [UInt8]) throws(VaultError) {
        guard knownPassphrase == nil else { return }
        let passphrase = try passphrase(for: .unlock)
        let derived = try kdf.deriveKeys(passphrase: passphrase, salt: salt).master
        guard derived.withUnsafeBytes({ Array($0) }) == master.withUnsafeBytes({ Array($0) }) else {
            forgetPassphrase()
            throw .wrongPassphrase
        }
    }
}
