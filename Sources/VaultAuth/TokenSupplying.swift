// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// Where a ``Requester`` takes its tokens from: a ``TokenSource`` (the work done in this
/// process), or something that asks elsewhere first (`vault agent`) and falls back to one.
///
/// The Requester keeps its own rules whatever supplies the tokens: the token goes only to
/// ``account``'s origin, ``provider`` says which answers reject a token, and a rejected
/// token causes one ``replacement(afterRejectionOf:)`` and one replay, never more.
public protocol TokenSupplying: Sendable {
    /// The account whose tokens these are.
    var account: AccountItems { get }
    /// The account's provider: it says which answers reject a token.
    var provider: any AuthProvider { get }
    /// Leeway and timeouts; its ``Requester/Configuration/requestTimeout`` bounds each request.
    var configuration: Requester.Configuration { get }
    /// The source that does the work in this process when nothing else does (a
    /// ``TokenSource`` is its own).
    var localSource: TokenSource { get }
    /// Valid tokens for the account.
    func token() async throws(AuthError) -> TokenSet
    /// The tokens that replace `used` after the resource server rejected it (a 401).
    func replacement(afterRejectionOf used: TokenSet) async throws(AuthError) -> TokenSet
}

extension TokenSource: TokenSupplying {
    public nonisolated var localSource: TokenSource { self }
}
