// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Crypto

/// A salted password hash as stored in the user directory (never the password itself).
struct PasswordHash: Sendable {
    /// Random per-user salt.
    let salt: [UInt8]
    /// PBKDF2-HMAC-SHA256 output (32 bytes).
    let hash: [UInt8]
    /// Iteration count used to derive ``hash``.
    let iterations: Int
}

/// PBKDF2-HMAC-SHA256 (RFC 8018), one 32-byte output block, with a random 16-byte salt.
enum PasswordHasher {
    /// Hashes `password` with a fresh random salt.
    static func hash(_ password: String, iterations: Int) -> PasswordHash {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return PasswordHash(salt: salt, hash: derive(password, salt: salt, iterations: iterations), iterations: iterations)
    }

    /// Whether `password` matches `stored`, compared in constant time.
    static func verify(_ password: String, against stored: PasswordHash) -> Bool {
        let candidate = derive(password, salt: stored.salt, iterations: stored.iterations)
        guard candidate.count == stored.hash.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(candidate, stored.hash) {
            difference |= a ^ b
        }
        return difference == 0
    }

    /// The first PBKDF2 block: U1 = HMAC(P, S || 1), Ui = HMAC(P, Ui-1), T = U1 ^ ... ^ Uc.
    static func derive(_ password: String, salt: [UInt8], iterations: Int) -> [UInt8] {
        let key = SymmetricKey(data: Array(password.utf8))
        var block = HMAC<SHA256>.authenticationCode(for: salt + [0, 0, 0, 1], using: key)
        var result = Array(block)
        for _ in 1..<max(iterations, 1) {
            block = HMAC<SHA256>.authenticationCode(for: Array(block), using: key)
            for (index, byte) in block.enumerated() {
                result[index] ^= byte
            }
        }
        return result
    }
}
