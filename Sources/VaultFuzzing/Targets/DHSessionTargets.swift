// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultSecretService

/// The Secret Service's `dh-ietf1024-sha256-aes128-cbc-pkcs7` session (docs/secret-service.md):
/// a client's public key opens it, secrets cross it AES-CBC with PKCS#7 padding.
///
/// Input: one byte n, then n bytes of the client's public key, then the bytes to wrap (and,
/// read as IV and ciphertext, to unwrap). Invariants:
/// - a key is accepted exactly when it is 1 < y < p − 1 in at most 129 bytes (at most 128
///   significant), by GMP's ordinary integers (the reference); a refusal is `invalidArguments`;
/// - for an accepted key, the session's y^x mod p (`mpn_sec_powm`) equals the reference's
///   (`mpz_powm`), for a fixed x;
/// - the session's AES key is the one the shared secret gives: a session opened from the
///   other side (the reference's y^x as the peer, exponent 1) reads what this one wraps;
/// - unwrap(wrap(s)) == s; unwrapping anything else is refused (`invalidArguments`) or gives
///   a value whose padding took 1 to 16 bytes of whole 16-byte blocks.
enum DHSessionTargets {
    /// The fixed private exponent: 32 bits, eight different nibbles (zero among them).
    static let exponent: [UInt8] = [0xF0, 0xE1, 0xD2, 0xC3]

    static let prime = OakleyGroup2.prime
    static let primeMinusOne = Array(OakleyGroup2.prime.dropLast()) + [OakleyGroup2.prime[127] - 1]

    static let session = FuzzTarget(
        name: "dh-session",
        summary: "a client's DH public key, then secrets wrapped and unwrapped: range checks, sec_powm vs mpz_powm, PKCS#7"
    ) { bytes throws(InvariantViolation) in
        let keyLength = Int(bytes.first ?? 0)
        let key = Array(bytes.dropFirst().prefix(keyLength))
        let payload = Array(bytes.dropFirst(1 + key.count))

        let inRange =
            key.count <= OakleyGroup2.byteCount + 1 && ReferenceArithmetic.compare(key, [1]) > 0
            && ReferenceArithmetic.compare(key, primeMinusOne) < 0
        let opened: DHTransferSession
        let publicKey: [UInt8]
        do throws(TransferSessionError) {
            (opened, publicKey) = try DHTransferSession.open(clientPublicKey: key, privateKey: exponent)
        } catch {
            try require(!inRange, "an in-range key of \(key.count) bytes was refused: \(error)")
            guard case .invalidArguments = error else { throw InvariantViolation("a refused key gave \(error), not invalidArguments") }
            return
        }
        try require(inRange, "a key out of range (\(key.count) bytes) was accepted")
        try require(publicKey == ownPublicKey, "the provider's public key is not g^x mod p")

        // The side-channel-silent exponentiation against GMP's ordinary one.
        let sharedBytes = ReferenceArithmetic.power(key, exponent: exponent, modulus: prime, byteCount: OakleyGroup2.byteCount)
        guard let validated = OakleyGroup2.validatedPeerKey(key) else { throw InvariantViolation("open accepted a key validation refuses") }
        try require(
            OakleyGroup2.modulus.power(validated, exponent: exponent) == sharedBytes, "y^x mod p differs from the reference")

        // The other side: peer key y^x, exponent 1, so the same shared secret and AES key.
        let other: DHTransferSession
        do throws(TransferSessionError) {
            (other, _) = try DHTransferSession.open(clientPublicKey: sharedBytes, privateKey: [1])
        } catch {
            throw InvariantViolation("the shared secret y^x is refused as a key: \(error)")
        }
        let secret = Array(payload.prefix(300))
        let wrapped: (parameters: [UInt8], value: [UInt8])
        do throws(TransferSessionError) {
            wrapped = try opened.encrypt(secret)
        } catch {
            throw InvariantViolation("wrapping \(secret.count) bytes failed: \(error)")
        }
        try require(
            wrapped.parameters.count == 16 && wrapped.value.count == (secret.count / 16 + 1) * 16,
            "wrap gave a \(wrapped.parameters.count)-byte IV and \(wrapped.value.count) bytes for \(secret.count)")
        try require(unwrap(other, wrapped.parameters, wrapped.value) == .success(secret), "the other side unwraps other bytes")
        try require(unwrap(opened, wrapped.parameters, wrapped.value) == .success(secret), "unwrap(wrap(s)) != s")

        // Anything as IV and ciphertext: refused, or well-padded whole blocks.
        let iv = Array(payload.prefix(16))
        let sealed = Array(payload.dropFirst(16))
        switch unwrap(opened, iv, sealed) {
        case .success(let plain):
            let padding = sealed.count - plain.count
            try require(iv.count == 16, "unwrap took a \(iv.count)-byte IV")
            try require(!sealed.isEmpty && sealed.count % 16 == 0, "unwrap took \(sealed.count) bytes, not whole blocks")
            try require((1...16).contains(padding), "unwrap dropped \(padding) bytes of padding")
        case .failure(let error):
            guard case .invalidArguments = error else { throw InvariantViolation("a refused unwrap gave \(error), not invalidArguments") }
        }
    }

    static func unwrap(_ session: DHTransferSession, _ iv: [UInt8], _ sealed: [UInt8]) -> Result<[UInt8], TransferSessionError> {
        do throws(TransferSessionError) {
            return .success(try session.decrypt(parameters: iv, value: sealed))
        } catch {
            return .failure(error)
        }
    }

    /// g^x mod p by the reference.
    static let ownPublicKey = ReferenceArithmetic.power([2], exponent: exponent, modulus: prime, byteCount: OakleyGroup2.byteCount)
}
