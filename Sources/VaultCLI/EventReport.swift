// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultAuth
import VaultStoreCLI

/// One readable line per Requester event, on stderr: with `--verbose` every event,
/// else only warnings (tokens that could not be stored).
enum EventReport {
    static func note(_ event: RequesterEvent, verbose: Bool) {
        if case .tokensNotSaved = event {} else if !verbose { return }
        switch event {
        case .usedToken: Terminal.note("used the stored access token")
        case .refreshed: Terminal.note("refreshed the access token")
        case .adoptedStoredTokens: Terminal.note("took the tokens another process had just refreshed")
        case .loggedInAgain: Terminal.note("the refresh token was dead: logged in again with the stored password")
        case .replayedAfter401: Terminal.note("got 401: replayed the request once with a new token")
        case .tokensNotSaved(let why): Terminal.note("warning: the new tokens could not be stored (\(why)); used them anyway")
        case .followedRedirect: Terminal.note("followed a redirect within the server's origin")
        case .followedRedirectWithoutToken: Terminal.note("followed a redirect to another origin, without the token")
        }
    }
}
