// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAgent
import VaultSecretService
import VaultStore

/// What `vault agent --secret-service` serves: the encrypted file the agent holds, locked
/// and unlocked with it (`vault lock`, `vault unlock`, a key cache that ran out).
struct AgentVaultBacking: SecretServiceBacking {
    let agent: Agent

    func contents() async throws(VaultError) -> VaultContents {
        let store = try await heldStore()
        return try await Blocking.run { () throws(VaultError) in try store.contents() ?? VaultContents() }
    }

    func revisedContents() async throws(VaultError) -> (contents: VaultContents, revision: ContentsRevision) {
        let store = try await heldStore()
        return try await Blocking.run { () throws(VaultError) in try store.revisedContents() ?? (VaultContents(), .next()) }
    }

    func modify(_ change: @escaping @Sendable (inout VaultContents) throws(VaultError) -> Bool) async throws(VaultError) {
        let store = try await heldStore()
        try await Blocking.run { () throws(VaultError) in try store.modifyContents(change) }
    }

    var isLocked: Bool { agent.vaultIsLocked }

    func unlock() async -> Bool { await agent.unlockedVault() != nil }

    func lock() async { agent.lockVault() }

    func onLockChange(_ handler: @escaping @Sendable () -> Void) { agent.onVaultLockChange(handler) }

    /// The vault file's store while the vault is unlocked.
    private func heldStore() async throws(VaultError) -> any VaultContentsStore {
        guard let store = await agent.unlockedVault() else { throw .locked(Agent.lockedReason) }
        guard let contents = store as? any VaultContentsStore else {
            throw .backendUnavailable("the Secret Service is served from the encrypted file only, not from \(store.backendName)")
        }
        return contents
    }
}
