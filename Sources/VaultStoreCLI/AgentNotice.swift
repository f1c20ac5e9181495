// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAgentProtocol
import VaultStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Tells every `vault agent` of this user what a command just did (`lock`, `logout`,
/// `remove`, `login`, `passwd`): the user's order reaches each agent, wherever it listens
/// and whatever `VAULT_AGENT` says (that switch only keeps commands from asking an agent to
/// serve them).
package enum AgentNotice {
    /// Every place an agent of this user may listen, each once: `VAULT_AGENT_SOCKET`, the
    /// standard socket under `XDG_RUNTIME_DIR`; with `XDG_RUNTIME_DIR` unset (cron, ssh
    /// without a session) the one under `/run/user/UID`, where the systemd unit's agent
    /// listens; and the fallback under `/tmp/vault-agent-UID`, where an agent started
    /// without `XDG_RUNTIME_DIR` listens. (A set `XDG_RUNTIME_DIR` is the session's: a
    /// private one, as the tests make, keeps the user's own agent out of reach.)
    package static func socketPlaces(_ variables: [String: String], uid: UInt32 = getuid()) -> [String] {
        var places: [String] = []
        if let chosen = variables["VAULT_AGENT_SOCKET"], !chosen.isEmpty { places.append(chosen) }
        if let runtime = variables["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            places.append(AgentSocketPath.standard(runtimeDirectory: runtime, uid: uid))
        } else {
            places.append(AgentSocketPath.standard(runtimeDirectory: "/run/user/\(uid)", uid: uid))
        }
        places.append(AgentSocketPath.standard(runtimeDirectory: nil, uid: uid))
        var seen: Set<String> = []
        return places.filter { seen.insert($0).inserted }
    }

    /// Sends `request` to the agent at each of ``socketPlaces(_:uid:)`` that has a socket
    /// file, one after the other (each within ``AgentAccess/shortTimeout``), and returns
    /// the places whose agent did it. With `verbose`, one line per agent:
    /// `agent at PATH: told to WHAT` or `agent at PATH: REASON`.
    /// With `loudly`, a decline other than "another store" is said without `verbose` too:
    /// the agent could not do what the user's command needs (a token file left behind).
    package static func tell(
        _ request: AgentRequest, what: String, variables: [String: String], verbose: Bool, loudly: Bool = false
    ) -> [String] {
        var told: [String] = []
        for place in socketPlaces(variables) where AgentAccess.isSocket(place) {
            let shown = TextEscaping.escaped(place)
            switch AgentClient.ask(request, socketPath: place, timeout: AgentAccess.shortTimeout) {
            case .success(.done):
                told.append(place)
                if verbose { Terminal.note("agent at \(shown): told to \(what)") }
            case .success(.declined(let reason)):
                if verbose || (loudly && reason != anotherStore) { Terminal.note("agent at \(shown): \(TextEscaping.escaped(reason))") }
            case .failure(let failure):
                if verbose { Terminal.note("agent at \(shown): \(failure)") }
            }
        }
        return told
    }

    /// Tells every agent that `server`'s `account` changed in the store `configuration`
    /// selects (an agent of another store declines): after this, none of them serves what
    /// it held of the account, and when the store holds no tokens its token files are gone.
    package static func accountChanged(server: String, account: String, _ configuration: StoreConfiguration) {
        let request = AgentRequest.changed(store: configuration.noticeStoreKey, server: server, account: account)
        _ = tell(
            request, what: "read \(account) on \(server) again", variables: configuration.variables, verbose: configuration.verbose,
            loudly: true)
    }

    /// How an agent declines a request about another store than its own.
    static let anotherStore = "the agent serves another store"
}
