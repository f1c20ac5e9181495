// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// What a client asks `vault agent` over its socket: one request per connection.
///
/// Wire format (version 1), documented in docs/agent.md:
/// a frame is a 4-byte big-endian length, then that many bytes of payload; a request's
/// payload is at most ``AgentFrame/maximumRequest`` bytes, an answer's at most
/// ``AgentFrame/maximumAnswer``. A payload is a version byte (1), a kind byte (the
/// operation, or the answer's status), then fields, each a 4-byte big-endian length and
/// that many bytes. Anything else (another version, an unknown kind, a wrong field count,
/// a length past the end, bytes after the last field) is refused whole.
public enum AgentRequest: Sendable, Equatable {
    /// "Are you there?": answered with the agent's version line.
    case ping
    /// A valid access token of `account` on `server` in the store `store` (an
    /// ``AgentStoreKey`` string). With `rejected` (the access token a resource server just
    /// answered 401 to), the token that replaces it (refreshed at most once).
    case token(store: String, server: String, account: String, rejected: [UInt8]?)
    /// The secret and label of the item (`vault load`).
    case load(store: String, server: String, account: String)
    /// The agent's view of every account it keeps, as JSON text (`vault status`).
    case status(store: String)
    /// Drop every key held in memory (`vault lock`).
    case lock
    /// The user changed `account`'s items on `server` in the store `store` (`logout`,
    /// `remove`, `login`): drop what is held of them and read the store again. Answered once
    /// the agent holds nothing older than the store and, when the store holds no tokens any
    /// more, the account's token files are gone.
    case changed(store: String, server: String, account: String)
    /// The store `store` has a new passphrase (`vault passwd`): drop the old key, and open
    /// the store again from the key cache when it holds the new one.
    case rekeyed(store: String)

    /// The operation byte of each kind.
    enum Operation: UInt8 {
        case ping = 1, token = 2, load = 3, status = 4, lock = 5, changed = 6, rekeyed = 7
    }

    /// The request as a frame's payload.
    public func encoded() -> [UInt8] {
        switch self {
        case .ping: AgentFrame.payload(kind: Operation.ping.rawValue, fields: [])
        case .token(let store, let server, let account, let rejected):
            AgentFrame.payload(
                kind: Operation.token.rawValue, fields: [Array(store.utf8), Array(server.utf8), Array(account.utf8), rejected ?? []])
        case .load(let store, let server, let account):
            AgentFrame.payload(kind: Operation.load.rawValue, fields: [Array(store.utf8), Array(server.utf8), Array(account.utf8)])
        case .status(let store): AgentFrame.payload(kind: Operation.status.rawValue, fields: [Array(store.utf8)])
        case .lock: AgentFrame.payload(kind: Operation.lock.rawValue, fields: [])
        case .changed(let store, let server, let account):
            AgentFrame.payload(kind: Operation.changed.rawValue, fields: [Array(store.utf8), Array(server.utf8), Array(account.utf8)])
        case .rekeyed(let store): AgentFrame.payload(kind: Operation.rekeyed.rawValue, fields: [Array(store.utf8)])
        }
    }

    /// The request in `payload`, or nil when it is not a well-formed version-1 request
    /// (text fields must be UTF-8; an empty `rejected` field means none).
    public static func decode(_ payload: some Collection<UInt8>) -> AgentRequest? {
        guard let (kind, fields) = AgentFrame.parse(payload), let operation = Operation(rawValue: kind) else { return nil }
        func text(_ index: Int) -> String? { String(validating: fields[index], as: UTF8.self) }
        switch (operation, fields.count) {
        case (.ping, 0): return .ping
        case (.lock, 0): return .lock
        case (.rekeyed, 1):
            guard let store = text(0) else { return nil }
            return .rekeyed(store: store)
        case (.status, 1):
            guard let store = text(0) else { return nil }
            return .status(store: store)
        case (.load, 3):
            guard let store = text(0), let server = text(1), let account = text(2) else { return nil }
            return .load(store: store, server: server, account: account)
        case (.changed, 3):
            guard let store = text(0), let server = text(1), let account = text(2) else { return nil }
            return .changed(store: store, server: server, account: account)
        case (.token, 4):
            guard let store = text(0), let server = text(1), let account = text(2) else { return nil }
            return .token(store: store, server: server, account: account, rejected: fields[3].isEmpty ? nil : fields[3])
        default: return nil
        }
    }
}

/// What the agent answers: one answer per request, then it closes the connection.
public enum AgentAnswer: Sendable, Equatable {
    /// Done: the fields of the operation. `ping`: [version line]. `token`: [access token,
    /// expiry as whole seconds since 1970 in decimal, how it was got: "held", "refreshed",
    /// "adopted" or "logged in again"]. `load`: [secret, label]. `status`: [JSON text].
    /// `lock`, `changed`, `rekeyed`: [].
    case done([[UInt8]])
    /// The agent does not serve this (another store, the vault is locked, the account is
    /// not logged in, needs a person, the provider failed...): `reason` is one line for
    /// `-v`, never a secret. The client does the work itself, so its output and exit code
    /// are what they would be without an agent.
    case declined(reason: String)

    enum Status: UInt8 {
        case done = 0, declined = 1
    }

    /// The answer as a frame's payload.
    public func encoded() -> [UInt8] {
        switch self {
        case .done(let fields): AgentFrame.payload(kind: Status.done.rawValue, fields: fields)
        case .declined(let reason): AgentFrame.payload(kind: Status.declined.rawValue, fields: [Array(reason.utf8)])
        }
    }

    /// The answer in `payload`, or nil when it is not a well-formed version-1 answer.
    public static func decode(_ payload: some Collection<UInt8>) -> AgentAnswer? {
        guard let (kind, fields) = AgentFrame.parse(payload), let status = Status(rawValue: kind) else { return nil }
        switch status {
        case .done: return .done(fields)
        case .declined:
            guard fields.count == 1, let reason = String(validating: fields[0], as: UTF8.self) else { return nil }
            return .declined(reason: reason)
        }
    }
}
