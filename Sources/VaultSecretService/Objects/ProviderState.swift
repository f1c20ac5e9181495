// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// What the provider remembers between calls, besides the vault's contents: the open
/// sessions and prompts (each owned by the unique name that opened it), the callers' uids,
/// the aliases, the collections clients last saw (to tell them about lock changes) and the
/// items' paths.
package struct ProviderState: Sendable {
    struct OpenSession: Sendable {
        var owner: String
        var session: any TransferSession
    }

    var sessions: [Int: OpenSession] = [:]
    var nextSession = 1
    /// Open prompts: their owners.
    var prompts: [Int: String] = [:]
    var nextPrompt = 1
    /// The uid behind each unique name that called.
    package var uids: [String: UInt32] = [:]
    /// Alias -> collection id.
    var aliases: [String: String] = ["default": "login", "login": "login"]
    var knownCollections: [String] = ["login"]
    /// The items' object paths, following the contents the provider last read or wrote.
    var paths = ItemPaths()
    /// Counts changes of ``paths`` and the starts and ends of the provider's own changes, so
    /// a read that raced one does not update ``paths`` from older contents
    /// (``ProviderCore/model()``).
    var pathsGeneration: UInt64 = 0
    /// The snapshot (``ContentsRevision``) ``paths`` followed at generation `generation`,
    /// and its attribute index: reads of the same snapshot (the backing hands out one while
    /// the file is unchanged) reuse both instead of walking every item again. Dropped when
    /// a change starts and when the vault locks (the index holds the items' attributes).
    var followed: (revision: ContentsRevision, index: AttributeIndex, generation: UInt64)?
    /// Counts the vault's locks, so a read that a lock overtook does not keep its index.
    var locks: UInt64 = 0
    /// True while one of the provider's own changes is under way; the reads and changes
    /// waiting for it to end.
    var changing = false
    var changeWaiters: [CheckedContinuation<Void, Never>] = []
    /// When the log last said the vault is locked (seconds since 1970), so a client polling
    /// a locked vault does not fill the log.
    var lastLockedNotice: UInt64 = 0
    /// The last call of each client, which its next call waits for: one client's calls are
    /// answered in order, different clients' at once.
    var lastCall: [String: Task<Void, Never>] = [:]

    /// Opens a session for `owner`. At a bound the oldest session gives way: the client's
    /// own (clients such as SecretStorage open one per call and close none until they leave
    /// the bus), else, past the overall bound, the oldest of all. So the sessions held stay
    /// bounded and a long-lived client keeps working, as it does with GNOME Keyring.
    mutating func add(_ session: any TransferSession, owner: String) throws(ServiceFault) -> Int {
        let own = sessions.filter { $0.value.owner == owner }.keys
        if own.count >= Limits.sessionsPerClient, let oldest = own.min() { sessions[oldest] = nil }
        if sessions.count >= Limits.sessions, let oldest = sessions.keys.min() { sessions[oldest] = nil }
        let number = nextSession
        nextSession += 1
        sessions[number] = OpenSession(owner: owner, session: session)
        return number
    }

    /// Opens a prompt for `owner`, within the limits.
    mutating func addPrompt(owner: String) throws(ServiceFault) -> Int {
        guard prompts.values.count(where: { $0 == owner }) < Limits.promptsPerClient else {
            throw .limitsExceeded("this client has \(Limits.promptsPerClient) prompts open already")
        }
        let number = nextPrompt
        nextPrompt += 1
        prompts[number] = owner
        return number
    }

    /// Forgets everything of a client that left the bus.
    mutating func forget(_ client: String) {
        sessions = sessions.filter { $0.value.owner != client }
        prompts = prompts.filter { $0.value != client }
        uids[client] = nil
        lastCall[client] = nil
    }
}
