// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// OAuth clients (`client_id` with a hashed `client_secret`) accepted by `POST /oauth/token`.
final class ClientDirectory: Sendable {
    private let clients: [String: PasswordHash]

    /// Creates the directory; later duplicates of an id are ignored.
    init(clients: [CredentialPair], iterations: Int) {
        var table: [String: PasswordHash] = [:]
        for client in clients where table[client.name] == nil {
            table[client.name] = PasswordHasher.hash(client.secret, iterations: iterations)
        }
        self.clients = table
    }

    /// Whether `secret` is right for the client `id`.
    func authenticate(id: String, secret: String) -> Bool {
        guard let hash = clients[id] else { return false }
        return PasswordHasher.verify(secret, against: hash)
    }

    /// Whether a client with this id exists.
    func contains(_ id: String) -> Bool {
        clients[id] != nil
    }
}
