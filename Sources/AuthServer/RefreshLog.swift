// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultSync

/// A test-only record of refresh-token rotations, per login, for soak tests that check a
/// client's refresh discipline ("at most one refresh per access-token expiry per account").
/// Kept only with ``AuthServerConfiguration/testControls`` (capacity 0 otherwise) and drained
/// by `POST /api/test/refresh_log`; past its capacity new entries are counted as dropped.
final class RefreshLog: Sendable {
    /// One rotation attempt whose refresh token was genuine (signed by this server).
    struct Entry: Codable, Sendable, Equatable {
        /// What became of it: `refreshed` (a new pair was issued) or `reused` (the token had
        /// already been spent or revoked: a second refresh of the same token).
        enum Outcome: String, Codable, Sendable {
            case refreshed
            case reused
        }

        /// The user's login.
        let login: String
        /// When, Unix milliseconds.
        let at: Int64
        /// What became of it.
        let outcome: Outcome
        /// The spent refresh token's id (`jti`), so a reuse can be traced to the rotation
        /// that spent it first; a test server's own identifier, never the token.
        var spent: String? = nil
        /// The id of the refresh token issued in its place (`refreshed` only).
        var issued: String? = nil
    }

    /// What a drain returns.
    struct Drained: Codable, Sendable, Equatable {
        /// The entries since the last drain, oldest first.
        let entries: [Entry]
        /// Entries not kept because the log was full.
        let dropped: Int
    }

    private struct State {
        var entries: [Entry] = []
        var dropped = 0
    }

    private let capacity: Int
    private let state = Locked(State())

    /// A log keeping at most `capacity` entries between drains (0: keeps nothing).
    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// Records one rotation attempt.
    func record(login: String, at: Int64, outcome: Entry.Outcome, spent: String? = nil, issued: String? = nil) {
        guard capacity > 0 else { return }
        state.withLock { state in
            if state.entries.count < capacity {
                state.entries.append(Entry(login: login, at: at, outcome: outcome, spent: spent, issued: issued))
            } else {
                state.dropped += 1
            }
        }
    }

    /// The entries so far, which are then forgotten.
    func drain() -> Drained {
        state.withLock { state in
            defer { state = State() }
            return Drained(entries: state.entries, dropped: state.dropped)
        }
    }
}
