// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultSecretService
import VaultStore
import VaultTestSupport

/// The `dh-ietf1024-sha256-aes128-cbc-pkcs7` session against an independent client:
/// Tests/Helpers/dh-client, Python doing what SecretStorage's dhcrypto.py does with the
/// `cryptography` package, its own key pair in its own process. Both directions of a secret,
/// then what the session must refuse.
@Suite("DH: transfer session", .cpuBound)
struct DHSessionTests {
    static let algorithm = "dh-ietf1024-sha256-aes128-cbc-pkcs7"

    /// The secrets every exchange carries: empty, around a block boundary, binary, 1 MiB.
    static let secrets: [[UInt8]] = [
        [], Array("s3cret".utf8), [UInt8](repeating: 0x41, count: 15), [UInt8](repeating: 0x42, count: 16),
        [UInt8](repeating: 0x43, count: 17), (0...255).map { UInt8($0) }, [UInt8](repeating: 0, count: 32),
        [UInt8](repeating: 16, count: 16), DHTestSupport.random(1 << 20),
    ]

    /// What one exchange with the Python client gave back.
    struct Exchange {
        var session: any TransferSession
        /// The provider's ciphertexts of `secrets`, as the client decrypted them.
        var decrypted: [[UInt8]]
        /// The client's ciphertexts of `secrets`: (IV, value).
        var encrypted: [([UInt8], [UInt8])]
        /// Ciphertexts under the session key whose plaintext's padding is wrong.
        var badPadding: [([UInt8], [UInt8])]
        /// The IVs the provider used.
        var providerIVs: [[UInt8]]
    }

    /// Runs the client (`padded` or `short` key), opens the session with its key through
    /// `TransferSessions.open`, sends it the provider's key and ciphertexts, and reads its answer.
    static func exchange(form: String, secrets: [[UInt8]]) throws -> Exchange {
        try withTemporaryDirectory("vault-dh") { directory in
            let client = try ChildProcess(DHTestSupport.client, [form], keepingStdinOpen: true)
            defer { if client.isRunning { client.kill() } }
            let line = try #require(client.waitForOutputBlocking(timeout: 60) { $0.contains("\n") }, "the client printed no key")
            let clientKey = try #require(Hex.decode(line.trimmingCharacters(in: .whitespacesAndNewlines)))
            switch form {
            case "short": #expect(clientKey.count < 128 && clientKey.first != 0)
            case "padded": #expect(clientKey.count == 128)
            default: #expect(clientKey.count <= 128)
            }

            let (session, output) = try TransferSessions.open(algorithm: algorithm, input: clientKey)
            #expect(session.algorithm == algorithm)
            let serverKey = try #require(output)
            #expect(serverKey.count == 128)

            let sent = try secrets.map { try session.encrypt($0) }
            let request: [String: Any] = [
                "decrypt": sent.map { [Hex.encode($0.parameters), Hex.encode($0.value)] },
                "encrypt": secrets.map { Hex.encode($0) },
            ]
            let requestPath = directory + "/request.json"
            let responsePath = directory + "/response.json"
            try JSONSerialization.data(withJSONObject: request).write(to: URL(fileURLWithPath: requestPath))
            client.write("\(Hex.encode(serverKey)) \(requestPath) \(responsePath)\n")
            client.closeInput()
            let result = try client.finish(timeout: 120)
            try #require(result.status == 0, "the client failed: \(result.err.suffix(2000))")

            let response = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: responsePath))) as? [String: Any])
            func pairs(_ key: String) throws -> [([UInt8], [UInt8])] {
                let list = try #require(response[key] as? [[String]])
                return try list.map { (try #require(Hex.decode($0[0])), try #require(Hex.decode($0[1]))) }
            }
            let decrypted = try #require(response["decrypted"] as? [String]).map { try #require(Hex.decode($0)) }
            return Exchange(
                session: session, decrypted: decrypted, encrypted: try pairs("encrypted"), badPadding: try pairs("badPadding"),
                providerIVs: sent.map(\.parameters))
        }
    }

    @Test(
        "secrets cross both ways with a Python client: SecretStorage's way (128-byte and short keys) and the installed SecretStorage's own",
        arguments: ["padded", "short", "secretstorage"])
    func bothWays(form: String) throws {
        let exchange = try Self.exchange(form: form, secrets: Self.secrets)
        #expect(exchange.decrypted.count == Self.secrets.count)
        for (index, secret) in Self.secrets.enumerated() {
            #expect(index < exchange.decrypted.count && exchange.decrypted[index] == secret, "provider -> client, secret \(index)")
            let (iv, value) = exchange.encrypted[index]
            #expect(try exchange.session.decrypt(parameters: iv, value: value) == secret, "client -> provider, secret \(index)")
        }
        #expect(exchange.providerIVs.allSatisfy { $0.count == 16 })
        #expect(Set(exchange.providerIVs).count == Self.secrets.count, "a fresh IV per secret")
    }

    @Test("the same secret twice gives two different ciphertexts, and a ciphertext is not the secret")
    func freshIV() throws {
        let (session, _) = try TransferSessions.open(algorithm: Self.algorithm, input: [5])
        let secret = Array("the same secret".utf8)
        let first = try session.encrypt(secret)
        let second = try session.encrypt(secret)
        #expect(first.parameters != second.parameters && first.value != second.value)
        #expect(first.value.count == 16 && !first.value.starts(with: secret.prefix(4)))
        #expect(try session.decrypt(parameters: first.parameters, value: first.value) == secret)
        #expect(try session.decrypt(parameters: second.parameters, value: second.value) == secret)
    }

    @Test("two sessions have different provider keys and keys that do not read each other's secrets")
    func sessionsDiffer() throws {
        let (a, keyA) = try TransferSessions.open(algorithm: Self.algorithm, input: [7])
        let (b, keyB) = try TransferSessions.open(algorithm: Self.algorithm, input: [7])
        #expect(keyA != keyB)
        let sent = try a.encrypt(Array("for a only".utf8))
        #expect(throws: TransferSessionError.self) {
            // A wrong key gives garbage: a bad padding, nearly always (1 in 256 passes).
            for _ in 0..<16 {
                let again = try a.encrypt(Array("for a only".utf8))
                _ = try b.decrypt(parameters: again.parameters, value: again.value)
            }
        }
        #expect(try a.decrypt(parameters: sent.parameters, value: sent.value) == Array("for a only".utf8))
    }

    @Test("bad client keys are refused as invalid arguments: 0, 1, p - 1, p, 129 and 130 bytes, empty")
    func badKeys() throws {
        let prime = try #require(
            Hex.decode(
                "ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404dd"
                    + "ef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7ed"
                    + "ee386bfb5a899fa5ae9f24117c4b1fe649286651ece65381ffffffffffffffff"))
        var pMinusOne = prime
        pMinusOne[127] -= 1
        var pMinusTwo = prime
        pMinusTwo[127] -= 2
        let bad: [[UInt8]] = [
            [], [0], [1], [UInt8](repeating: 0, count: 128), [UInt8](repeating: 0, count: 127) + [1], pMinusOne, prime,
            [0] + prime, [UInt8](repeating: 0xFF, count: 128), [1] + [UInt8](repeating: 0, count: 128), [0, 0] + pMinusTwo,
            [UInt8](repeating: 0x55, count: 4096),
        ]
        for key in bad {
            do {
                _ = try TransferSessions.open(algorithm: Self.algorithm, input: key)
                Issue.record("a key of \(key.count) bytes was accepted")
            } catch {
                guard case .invalidArguments(let message) = error else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(!message.contains("\n") && message.count < 200)
            }
        }
        // The edges that are keys: 2, p - 2, and p - 2 with GnuTLS's leading zero byte.
        for key in [[2], pMinusTwo, [0] + pMinusTwo] {
            #expect(throws: Never.self) { try TransferSessions.open(algorithm: Self.algorithm, input: key) }
        }
    }

    @Test("bad IVs, bad lengths and bad paddings (made by the Python client) are refused, the message one line without the secret")
    func badSecrets() throws {
        let exchange = try Self.exchange(form: "padded", secrets: [Array("hunter2-hunter2-hunter2".utf8)])
        let session = exchange.session
        let (iv, value) = exchange.encrypted[0]
        #expect(try session.decrypt(parameters: iv, value: value) == Array("hunter2-hunter2-hunter2".utf8))
        var attempts: [(String, [UInt8], [UInt8])] = [
            ("no IV", [], value), ("15-byte IV", Array(iv.prefix(15)), value), ("17-byte IV", iv + [0], value),
            ("empty value", iv, []), ("15-byte value", iv, Array(value.prefix(15))), ("17-byte value", iv, Array(value.prefix(17))),
            ("value + 1 byte", iv, value + [0]),
        ]
        for (index, (badIV, badValue)) in exchange.badPadding.enumerated() {
            #expect(badIV.count == 16 && badValue.count == 16)
            attempts.append(("bad padding \(index)", badIV, badValue))
        }
        for (name, parameters, value) in attempts {
            do {
                let plain = try session.decrypt(parameters: parameters, value: value)
                Issue.record("\(name) was accepted (\(plain.count) bytes)")
            } catch {
                guard case .invalidArguments(let message) = error else {
                    Issue.record("\(name): \(error)")
                    continue
                }
                #expect(!message.contains("\n") && !message.contains("hunter") && message.count < 200, "\(name): \(message)")
            }
        }
    }
}
