// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// The account's tokens as a ``TokenSource`` holds them: exactly one of these at a time.
///
/// ```
/// unloaded ──first request──▶ loading ──stored tokens──▶ ready ◀──────────┐
///                               │  └──none stored──▶ absent               │
///                               └──store failed──▶ unloaded    refreshing ┘ (success: the new
///                                                    ready ──stale/expired/401──▶ refreshing    tokens; failure: the
///                                                                                               previous ones)
/// ```
/// Every transition happens on the actor; a task that finishes after the state moved on
/// (a load overtaken by a refresh) changes nothing.
enum TokenState {
    /// Nothing read from the store yet.
    case unloaded
    /// The first read of the store, shared by every request that arrives meanwhile.
    case loading(Task<Result<TokenSet?, AuthError>, Never>)
    /// The store held no tokens at the last read: not logged in (the next request reads
    /// the store again, so a login by another process is seen).
    case absent
    /// Tokens to send.
    case ready(HeldTokens)
    /// One refresh under way, shared by every request that needs it; `HeldTokens` are
    /// the tokens it replaces (still sent while they are fresh, kept if it fails).
    case refreshing(HeldTokens, Task<Result<TokenSet, AuthError>, Never>)

    /// The tokens held, if any.
    var held: HeldTokens? {
        switch self {
        case .ready(let held), .refreshing(let held, _): held
        case .unloaded, .loading, .absent: nil
        }
    }

    /// The refresh under way, if any.
    var refreshTask: Task<Result<TokenSet, AuthError>, Never>? {
        if case .refreshing(_, let task) = self { return task }
        return nil
    }

    /// Records that the store has taken `tokens`, when they are still the ones held.
    mutating func markStored(_ tokens: TokenSet) {
        switch self {
        case .ready(var held) where held.tokens == tokens:
            held.stored = true
            self = .ready(held)
        case .refreshing(var held, let task) where held.tokens == tokens:
            held.stored = true
            self = .refreshing(held, task)
        default: break
        }
    }
}

/// Tokens in memory, with their `Authorization` value built once.
struct HeldTokens {
    let tokens: TokenSet
    /// `Bearer <access token>`.
    let bearer: String
    /// False while the store has refused them: the server has rotated, so they must not be
    /// lost, and the store's older tokens must be neither adopted nor refreshed from.
    var stored: Bool
    /// While they are not stored, the stored tokens they replace (nil: none were read).
    /// The store is the truth: a retried save goes over exactly these, and when the store
    /// holds others (a new login) or none (a logout), the unsaved tokens are dropped.
    let replacing: TokenSet?

    init(_ tokens: TokenSet, stored: Bool, replacing: TokenSet? = nil) {
        self.tokens = tokens
        self.bearer = Self.bearer(tokens.accessToken)
        self.stored = stored
        self.replacing = stored ? nil : replacing
    }

    static func bearer(_ token: Secret) -> String { "Bearer \(token.utf8String ?? "")" }
}
