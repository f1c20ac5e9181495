// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// OAuth clients accepted by the `/oauth` endpoints: confidential ones (`client_id` with a
/// hashed `client_secret`) and public ones (an id only, RFC 6749 §2.1).
final class ClientDirectory: Sendable {
    private let clients: [String: PasswordHash]
    private let publicClients: Set<String>

    /// Creates the directory; later duplicates of an id are ignored, and a public id that is
    /// also a confidential one stays confidential.
    init(clients: [CredentialPair], publicClients: [String] = [], iterations: Int) {
        var table: [String: PasswordHash] = [:]
        for client in clients where table[client.name] == nil {
            table[client.name] = PasswordHasher.hash(client.secret, iterations: iterations)
        }
        self.clients = table
        self.publicClients = Set(publicClients).subtracting(table.keys)
    }

    /// Whether `id` is a public client (no secret).
    func isPublic(_ id: String) -> Bool {
        publicClients.contains(id)
    }

    /// Whether `secret` is right for the client `id`.
    func authenticate(id: String, secret: String) -> Bool {
        guard let hash = clients[id] else { return false }
        return PasswordHasher.verify(secret, against: hash)
    }

    /// Whether a client with this id exists.
    func contains(_ id: String) -> Bool {
        clients[id] != nil || publicClients.contains(id)
    }
}
