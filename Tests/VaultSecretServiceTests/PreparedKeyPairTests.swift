// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing
import VaultTestSupport

@testable import VaultSecretService

@Suite("PreparedKeyPair: one fresh pair per session, made ahead", .cpuBound)
struct PreparedKeyPairTests {
    @Test("each take is a pair never handed out before, and its public key is g^x mod p")
    func freshPairs() async throws {
        let reserve = PreparedKeyPair()
        var pairs: [PreparedKeyPair.Pair] = []
        for round in 0..<6 {
            pairs.append(reserve.take())
            // Every other take waits for the background pair, so both paths are taken.
            if round % 2 == 0 { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(Set(pairs.map(\.privateKey)).count == pairs.count)
        #expect(Set(pairs.map(\.publicKey)).count == pairs.count)
        for pair in pairs {
            #expect(pair.privateKey.count == OakleyGroup2.privateKeyByteCount)
            #expect(pair.publicKey == OakleyGroup2.publicKey(privateKey: pair.privateKey))
        }
    }

    @Test("a session opened with a prepared pair agrees with the client's side of the exchange")
    func sessionAgrees() throws {
        let client = PreparedKeyPair.make()
        let (session, providerKey) = try DHTransferSession.open(clientPublicKey: client.publicKey)
        // The client's side: the provider's public key raised to the client's private key.
        let (clientSide, _) = try DHTransferSession.open(clientPublicKey: providerKey, privateKey: client.privateKey)
        let (iv, sealed) = try session.encrypt(Array("prepared".utf8))
        #expect(try clientSide.decrypt(parameters: iv, value: sealed) == Array("prepared".utf8))
    }
}
