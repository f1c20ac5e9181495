// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAgent
import VaultAgentProtocol
import VaultAuth
import VaultStore
import VaultStoreCLI

/// Access tokens from `vault agent` for the sign-in commands (`token`, `request`,
/// `exec --token`), under ``AgentAccess``'s rule; each falls back to doing the work itself.
enum AgentTokens {
    /// The agent these commands may ask: ``AgentAccess/forServing(_:)``, unless the `vault`
    /// that handed this command over asked it already (then it is not asked twice).
    static func access(_ store: some StoreConfigurable) -> AgentAccess? {
        guard !AuthExecutable.agentAskedBeforeHandOver else { return nil }
        return AgentAccess.forServing(store.configuration)
    }

    /// How long a command waits for the agent: ``AgentAccess/servingTimeout``, or its
    /// `--timeout` when shorter (a command bounded to 5 s is not held 15 s by an agent
    /// whose provider hangs).
    static func timeout(_ given: Double?) -> Duration {
        guard let given, given.isFinite, given > 0 else { return AgentAccess.servingTimeout }
        return min(AgentAccess.servingTimeout, .milliseconds(max(1, Int((given * 1000).rounded()))))
    }

    /// A valid access token of `account` on `server` from the agent, or nil (with `-v`, why).
    static func token(server: String, account: String, store: some StoreConfigurable, timeout: Double?) -> Secret? {
        guard let agent = access(store) else { return nil }
        let request = AgentRequest.token(
            store: store.configuration.agentStoreKey, server: ServerName.normalized(server), account: account, rejected: nil)
        guard let token = agent.token(request, timeout: Self.timeout(timeout)) else { return nil }
        agent.served("the token")
        return Secret(bytes: token)
    }

    /// What a ``Requester`` takes its tokens from: the agent first, `source` when it cannot
    /// serve (``AgentTokenSupplier``); `source` alone when the agent may not be asked.
    static func supplier(_ source: TokenSource, store: some StoreConfigurable, timeout: Double?) -> any TokenSupplying {
        guard let agent = access(store) else { return source }
        return AgentTokenSupplier(
            localSource: source, socketPath: agent.socketPath, storeKey: store.configuration.agentStoreKey,
            timeout: Self.timeout(timeout)
        ) { outcome in
            switch outcome {
            case .served: agent.served("the token")
            case .fellBack(let reason): agent.fellBack(reason)
            }
        }
    }
}
