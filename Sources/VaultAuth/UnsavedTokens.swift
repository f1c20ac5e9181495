// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// Tokens the store refused, handed from a ``TokenSource`` that is dropped to the next one
/// of the same account (``TokenSource/handOver()``, ``TokenSource/carry(_:)``): the
/// provider has rotated, so they are the only copy of the account's refresh token.
public struct UnsavedTokens: Sendable, Equatable {
    /// The tokens to store.
    public let tokens: TokenSet
    /// The stored tokens they replace (nil: none were read); they are stored only over these.
    public let replacing: TokenSet?
}
