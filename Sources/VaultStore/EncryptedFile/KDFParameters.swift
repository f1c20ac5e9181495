// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto
import CryptoExtras

/// scrypt's work factor as the vault file records it: N = 2^log2N, r, p.
///
/// The default costs about a third of a second and 128 MiB in a release build. Reading a
/// file caps the work factor, so a forged header cannot make us allocate without bound.
public struct KDFParameters: Sendable, Hashable, CustomStringConvertible {
    /// The base-2 logarithm of scrypt's cost N (CPU and memory); a file is read only with 1...22.
    public var log2N: UInt8
    /// scrypt's block size r (default 8); a file is read only with 1...32.
    public var r: UInt32
    /// scrypt's parallelism p (default 1); a file is read only with 1...16.
    public var p: UInt32

    /// Creates parameters without checking them; reading a file checks its own against the caps
    /// (``maximumMemory``).
    public init(log2N: UInt8, r: UInt32 = 8, p: UInt32 = 1) {
        self.log2N = log2N
        self.r = r
        self.p = p
    }

    /// N = 2^17, r = 8, p = 1: 128 MiB of memory.
    public static let `default` = KDFParameters(log2N: 17)

    /// The weakest work factor a new file may be written with (tests use it: the `vault`
    /// command's debug builds take `VAULT_TEST_KDF_LOG2N`, from this to the default's).
    public static let minimumLog2N: UInt8 = 10

    /// The largest memory a file may ask for when it is read: 1 GiB.
    public static let maximumMemory = 1 << 30

    /// The memory scrypt needs with these parameters, in bytes.
    public var memory: Int { 128 * r.asInt * p.asInt << Int(log2N) }

    /// Throws unless the parameters are sane and within the reading cap.
    package func checkReadable() throws(VaultError) {
        guard (1...22).contains(log2N), (1...32).contains(r), (1...16).contains(p),
            memory <= KDFParameters.maximumMemory
        else {
            throw .corrupted("the key-derivation work factor in the header (\(self)) is beyond the allowed cap")
        }
    }

    /// Derives the vault's two keys from the passphrase: one that authenticates the
    /// header (and so checks the passphrase), one that seals the body.
    ///
    /// Every passphrase becomes a key here (a vault file's, `vault passwd`'s new one, a
    /// fleet's), so here it is refused, as `.invalidInput`, when it is empty or holds a NUL
    /// byte: scrypt's PBKDF2-HMAC pads a short key with zero bytes, so a passphrase with
    /// trailing NULs would open a vault made without them.
    package func deriveKeys(passphrase: Secret, salt: [UInt8]) throws(VaultError) -> VaultKeys {
        guard !passphrase.isEmpty else { throw .invalidInput("the passphrase must not be empty") }
        guard !passphrase.bytes.contains(0) else { throw .invalidInput("the passphrase must not contain a NUL byte") }
        let master: SymmetricKey
        do {
            master = try KDF.Scrypt.deriveKey(
                from: passphrase.bytes, salt: salt, outputByteCount: 32,
                rounds: 1 << Int(log2N), blockSize: r.asInt, parallelism: p.asInt,
                maxMemory: memory + 65536)
        } catch {
            throw .backendUnavailable("scrypt failed with \(self) (out of memory?)")
        }
        return VaultKeys(master: master)
    }

    /// Derives keys from `passphrase` and a fresh salt and throws them away: the cost of
    /// unlocking a vault, for benchmarks.
    @_spi(Benchmarks) public func deriveKeysForBenchmark(passphrase: Secret) throws(VaultError) {
        _ = try deriveKeys(passphrase: passphrase, salt: VaultFileFormat.newSalt())
    }

    /// `scrypt N=2^LOG2N r=R p=P`, for messages.
    public var description: String { "scrypt N=2^\(log2N) r=\(r) p=\(p)" }
}

/// The keys derived from a passphrase and a salt: scrypt's output (the master key, what the
/// key cache keeps) and the two keys HKDF makes from it.
package struct VaultKeys: Sendable {
    package let master: SymmetricKey
    package let header: SymmetricKey
    package let body: SymmetricKey

    /// The header and body keys of `master`.
    package init(master: SymmetricKey) {
        self.master = master
        header = HKDF<SHA256>.deriveKey(inputKeyMaterial: master, info: Array("vault header mac v1".utf8), outputByteCount: 32)
        body = HKDF<SHA256>.deriveKey(inputKeyMaterial: master, info: Array("vault body aead v1".utf8), outputByteCount: 32)
    }

    /// The master key's bytes (for the key cache only).
    var masterBytes: [UInt8] { master.withUnsafeBytes { Array($0) } }
}

extension UInt32 {
    package var asInt: Int { Int(self) }
}
