// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where derived vault keys may be kept between processes, so that only the first process
/// pays for scrypt (as `ssh-agent`, `gpg-agent` and `sudo` spare people the slow step).
/// ``KernelKeyring`` is the real one; tests put a double in its place.
///
/// Contract: `load` returns what `store` put under that name, or nil (absent, expired,
/// refused); nothing here throws, since the cache is only a shortcut: every failure means
/// "derive the key from the passphrase as usual".
public protocol DerivedKeyCache: Sendable {
    /// The key kept under `name`, or nil.
    func load(_ name: String) -> [UInt8]?
    /// Keeps `key` under `name` (replacing any other) for `lifetime` seconds; false when refused.
    @discardableResult
    func store(_ name: String, key: [UInt8], lifetime: Int) -> Bool
    /// Forgets the key under `name` at once; nothing happens when there is none.
    func remove(_ name: String)
    /// Forgets every key named `prefix` and 32 lower-case hexadecimal digits, the shape of the
    /// names vault gives its keys (`vault lock --all`); how many. Other names, even with
    /// that prefix, are not vault's and stay.
    @discardableResult
    func removeAll(prefix: String) -> Int
    /// Why the cache cannot be used here (a refused system call), or nil when it can.
    var unavailability: String? { get }
}

/// Whether and how long a store (the encrypted file, a fleet) keeps its derived key in a cache.
///
/// The trust boundary is the user: while a key is kept, any process of the same user can
/// use it without the passphrase (as with `ssh-agent`). A passphrase that *is* given is
/// still checked against the kept key's verifier (``CachedVaultKey``).
public struct KeyCachePolicy: Sendable {
    /// The cache.
    public let cache: any DerivedKeyCache
    /// Seconds a key stays cached after it was derived (the kernel's own expiry); above 0.
    public let lifetime: Int
    /// False when a store may use a key that is kept already but must never add one
    /// (`vault exec`: it leaves no key behind that was not there before it ran).
    public let storesNewKeys: Bool

    /// Told, in one line, when a store opens with a kept key (`--verbose`), or nil.
    public let notice: (@Sendable (String) -> Void)?

    /// Keeps keys in `cache` for `lifetime` seconds (at least 1); with `storesNewKeys`
    /// false, only reads the keys that are kept already.
    public init(
        cache: any DerivedKeyCache, lifetime: Int, storesNewKeys: Bool = true, notice: (@Sendable (String) -> Void)? = nil
    ) {
        self.cache = cache
        self.lifetime = max(1, lifetime)
        self.storesNewKeys = storesNewKeys
        self.notice = notice
    }

    /// This policy, reading kept keys but adding none.
    public var readOnly: KeyCachePolicy {
        KeyCachePolicy(cache: cache, lifetime: lifetime, storesNewKeys: false, notice: notice)
    }

    /// This policy, telling `notice` when a kept key is used.
    public func notifying(_ notice: (@Sendable (String) -> Void)?) -> KeyCachePolicy {
        KeyCachePolicy(cache: cache, lifetime: lifetime, storesNewKeys: storesNewKeys, notice: notice)
    }

    /// The prefix of the names of every vault file's kept key.
    public static let fileKeyPrefix = "vault:"
    /// The prefix of the names of every fleet's kept key (the etcd backend).
    public static let fleetKeyPrefix = "vault-fleet:"
    /// The prefixes of every name vault keeps a key under (`vault lock --all`).
    public static let everyPrefix = [fileKeyPrefix, fleetKeyPrefix]

    /// True for `name` of vault's shape: `prefix`, then 32 lower-case hexadecimal digits.
    public static func isVaultName(_ name: some StringProtocol, prefix: String) -> Bool {
        guard name.hasPrefix(prefix) else { return false }
        let digits = name.utf8.dropFirst(prefix.utf8.count)
        return digits.count == 32 && digits.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The default lifetime: ten minutes.
    public static let defaultLifetime = 600
    /// The longest lifetime accepted: one week.
    public static let maximumLifetime = 7 * 86_400

    /// The policy that keeps keys in the kernel's user keyring (``KernelKeyring``) for
    /// `lifetime` seconds.
    public static func kernelKeyring(lifetime: Int = defaultLifetime) -> KeyCachePolicy {
        KeyCachePolicy(cache: KernelKeyring(), lifetime: lifetime)
    }

    /// The name a vault file's key is kept under: `vault:` and 32 hex digits of a hash of the
    /// file's canonical path and its header (work factor and salt). A file given a new
    /// passphrase (a new salt) gets a new name, so a key is never tried on a file it was not
    /// derived for; the name says nothing readable about the path or the passphrase.
    static func name(path: String, header: VaultFileFormat.Header) -> String {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? ""
        let file = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let canonical =
            (realpath(directory.isEmpty ? (slash == nil ? "." : "/") : directory, nil)).map { pointer -> String in
                defer { free(pointer) }
                return String(cString: pointer)
            } ?? directory
        var input = Array("vault key cache v1\u{0}".utf8)
        input += Array((canonical + "/" + file).utf8) + [0]
        input += Array(header.kdf.description.utf8) + [0] + header.salt
        let digest = SHA256.hash(data: input)
        return fileKeyPrefix + Hex.encode(digest.prefix(16))
    }
}
