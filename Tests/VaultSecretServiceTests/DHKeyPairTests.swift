// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultTestSupport

@testable import VaultSecretService

@Suite("DH sessions: a fresh key pair for each", .cpuBound)
struct DHKeyPairTests {
    @Test("each session has a key pair of its own: no two provider public keys alike")
    func freshPairs() throws {
        let client = OakleyGroup2.makePrivateKey()
        let clientKey = OakleyGroup2.publicKey(privateKey: client)
        let keys = try (0..<6).map { _ in try DHTransferSession.open(clientPublicKey: clientKey).1 }
        #expect(Set(keys).count == keys.count)
        #expect(keys.allSatisfy { $0.count == OakleyGroup2.byteCount })
    }

    @Test("a session agrees with the client's side of the exchange")
    func sessionAgrees() throws {
        let client = OakleyGroup2.makePrivateKey()
        let (session, providerKey) = try DHTransferSession.open(clientPublicKey: OakleyGroup2.publicKey(privateKey: client))
        // The client's side: the provider's public key raised to the client's private key.
        let (clientSide, _) = try DHTransferSession.open(clientPublicKey: providerKey, privateKey: client)
        let (iv, sealed) = try session.encrypt(Array("fresh".utf8))
        #expect(try clientSide.decrypt(parameters: iv, value: sealed) == Array("fresh".utf8))
    }
}
