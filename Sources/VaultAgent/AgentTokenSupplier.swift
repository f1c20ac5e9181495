// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultAgentProtocol
import VaultAuth
import VaultStore
import VaultSync

/// What asking the agent came to, for the `-v` line of the command that asked.
public enum AgentOutcome: Sendable, Equatable {
    /// The agent served the token.
    case served
    /// The agent declined or could not be asked (`reason`, never a secret): the work is
    /// done in this process.
    case fellBack(reason: String)
}

/// Tokens from `vault agent`, and from a local ``TokenSource`` when the agent declines or
/// is gone: what `vault request` sends through (``Requester/init(supplier:transport:onEvent:)``).
///
/// The first token is asked of the agent; once it declined or failed, everything comes from
/// the local source. A token the agent served and the resource server rejected is replaced
/// by the agent (`rejected:`), or, when it cannot, by the local source (which reads the
/// store and refreshes once when the store holds the rejected token too).
public final class AgentTokenSupplier: TokenSupplying {
    public let localSource: TokenSource
    private let socketPath: String
    private let storeKey: String
    private let timeout: Duration
    private let report: @Sendable (AgentOutcome) -> Void
    /// Nil before the first ask; true while the agent serves; false once it did not.
    private let agentServes = Locked<Bool?>(nil)

    /// A supplier asking the agent at `socketPath` about `localSource`'s account in the
    /// store `storeKey` (``AgentRequest/token(store:server:account:rejected:)``), each
    /// exchange within `timeout`; `report` gets what each ask came to.
    public init(
        localSource: TokenSource, socketPath: String, storeKey: String, timeout: Duration = .seconds(15),
        report: @escaping @Sendable (AgentOutcome) -> Void = { _ in }
    ) {
        self.localSource = localSource
        self.socketPath = socketPath
        self.storeKey = storeKey
        self.timeout = timeout
        self.report = report
    }

    public var account: AccountItems { localSource.account }
    public var provider: any AuthProvider { localSource.provider }
    public var configuration: Requester.Configuration { localSource.configuration }

    public func token() async throws(AuthError) -> TokenSet {
        if agentServes.withLock({ $0 }) != false, let served = await ask(rejected: nil) { return served }
        return try await localSource.token()
    }

    public func replacement(afterRejectionOf used: TokenSet) async throws(AuthError) -> TokenSet {
        if agentServes.withLock({ $0 }) == true, let served = await ask(rejected: used.accessToken) { return served }
        // The local source knows nothing yet: it reads the store first, then replaces.
        _ = try await localSource.token()
        return try await localSource.replacement(afterRejectionOf: used)
    }

    /// The agent's token, or nil (then the local source serves from now on).
    private func ask(rejected: Secret?) async -> TokenSet? {
        let request = AgentRequest.token(
            store: storeKey, server: account.server, account: account.account, rejected: rejected?.bytes)
        let answer = await Self.ask(request, socketPath: socketPath, timeout: timeout)
        let outcome = Self.tokens(from: answer)
        agentServes.withLock { $0 = outcome.tokens != nil }
        report(outcome.tokens != nil ? .served : .fellBack(reason: outcome.reason))
        return outcome.tokens
    }

    /// The tokens of a `token` answer (``AgentTokenReply``), or why there are none.
    static func tokens(from answer: Result<AgentAnswer, AgentClientError>) -> (tokens: TokenSet?, reason: String) {
        switch answer {
        case .failure(let failure): return (nil, failure.description)
        case .success(.declined(let reason)): return (nil, reason)
        case .success(.done(let fields)):
            guard let reply = AgentTokenReply(fields: fields) else { return (nil, AgentClientError.malformed.description) }
            let tokens = TokenSet(
                accessToken: Secret(bytes: reply.accessToken), accessTokenExpiry: Date(timeIntervalSince1970: TimeInterval(reply.expiresAt)),
                refreshToken: nil, refreshTokenExpiry: nil, obtainedAt: Date())
            return (tokens, "")
        }
    }

    /// ``AgentClient/ask(_:socketPath:timeout:)`` on a thread of its own, so its blocking
    /// reads never hold a thread of the concurrency pool.
    public static func ask(_ request: AgentRequest, socketPath: String, timeout: Duration) async -> Result<AgentAnswer, AgentClientError> {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: AgentClient.ask(request, socketPath: socketPath, timeout: timeout)) }
            thread.start()
        }
    }
}
