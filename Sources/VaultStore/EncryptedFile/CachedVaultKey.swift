// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto

/// What a ``DerivedKeyCache`` keeps for a vault (the encrypted file or a fleet): the
/// 32-byte master key scrypt derived, and a verifier of the passphrase that derived it
/// (HMAC-SHA256 of the passphrase under the master key).
///
/// The verifier lets a cached key honour a passphrase that was *given* (a flag, a file,
/// an environment variable): a right one costs one HMAC, a different one is never taken
/// on the cache's word (the caller derives the key from it, so a wrong one fails as
/// without a cache, and after `vault passwd` the old one fails at once). The verifier says
/// nothing more about the passphrase than the key itself does: whoever can read one can
/// read the other.
///
/// Payload: the master key (32 bytes), then the verifier (32 bytes). A payload of the
/// key alone (written by an older vault) has no verifier: it serves only when no
/// passphrase is given.
public struct CachedVaultKey: Sendable {
    /// The derived master key.
    public let master: [UInt8]
    /// HMAC-SHA256 of the passphrase under ``master``, or nil when unknown.
    public let verifier: [UInt8]?

    /// The entry for `master`, derived from `passphrase`.
    public init(master: [UInt8], passphrase: Secret) {
        self.master = master
        self.verifier = Self.verifier(of: passphrase, under: master)
    }

    /// The entry a cache payload holds; nil for a payload of another size.
    public init?(payload: [UInt8]) {
        switch payload.count {
        case 32: (master, verifier) = (payload, nil)
        case 64: (master, verifier) = (Array(payload[0..<32]), Array(payload[32...]))
        default: return nil
        }
    }

    /// What the cache keeps: the key, then the verifier when there is one.
    public var payload: [UInt8] { master + (verifier ?? []) }

    /// True when `passphrase` is the one that derived this key (compared in constant time);
    /// false when it is not, or when there is no verifier to tell.
    public func admits(_ passphrase: Secret) -> Bool {
        guard let verifier else { return false }
        let candidate = Self.verifier(of: passphrase, under: master)
        var difference: UInt8 = 0
        for (a, b) in zip(candidate, verifier) { difference |= a ^ b }
        return difference == 0 && candidate.count == verifier.count
    }

    private static func verifier(of passphrase: Secret, under master: [UInt8]) -> [UInt8] {
        var message = Array("vault passphrase verifier v1\u{0}".utf8)
        message += passphrase.bytes
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: master)))
    }
}
