// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// The fields of a `done` answer, typed by the request they answer. Each reply encodes and
/// decodes its own fields (docs/agent.md gives the layout), so no caller reads positional
/// fields.
public protocol AgentReply: Sendable, Equatable {
    /// The reply in a `done` answer's `fields`, or nil when they are not this reply's.
    init?(fields: [[UInt8]])
    /// The fields of the `done` answer that carries this reply.
    var fields: [[UInt8]] { get }
}

extension AgentAnswer {
    /// A `done` answer carrying `reply`.
    public static func done(_ reply: some AgentReply) -> AgentAnswer { .done(reply.fields) }
}

/// The answer to `ping`: the agent's version line.
public struct AgentPingReply: AgentReply {
    /// For instance `vault-agent 1`.
    public var versionLine: String

    /// A reply naming `versionLine`.
    public init(versionLine: String) { self.versionLine = versionLine }

    /// One UTF-8 field.
    public init?(fields: [[UInt8]]) {
        guard fields.count == 1, let line = String(validating: fields[0], as: UTF8.self) else { return nil }
        versionLine = line
    }

    public var fields: [[UInt8]] { [Array(versionLine.utf8)] }
}

/// The answer to `token`: a valid access token of the account and when it expires.
public struct AgentTokenReply: AgentReply {
    /// The access token's bytes; never empty.
    public var accessToken: [UInt8]
    /// When the access token expires, in whole seconds since 1970.
    public var expiresAt: Int64
    /// How the agent got it: `held`, `refreshed`, `adopted` or `logged in again` (empty
    /// from an agent that does not say).
    public var how: String

    /// A reply carrying `accessToken`, valid until `expiresAt`, got as `how` says.
    public init(accessToken: [UInt8], expiresAt: Int64, how: String) {
        self.accessToken = accessToken
        self.expiresAt = expiresAt
        self.how = how
    }

    /// `[access token, expiry in decimal seconds since 1970, how]`; `how` may be missing.
    public init?(fields: [[UInt8]]) {
        guard (2...3).contains(fields.count), !fields[0].isEmpty, let text = String(validating: fields[1], as: UTF8.self),
            let seconds = Int64(text)
        else { return nil }
        accessToken = fields[0]
        expiresAt = seconds
        how = fields.count == 3 ? String(decoding: fields[2], as: UTF8.self) : ""
    }

    public var fields: [[UInt8]] { [accessToken, Array(String(expiresAt).utf8), Array(how.utf8)] }
}

/// The answer to `load`: the item's secret and label.
public struct AgentLoadReply: AgentReply {
    /// The secret's bytes, as stored.
    public var secret: [UInt8]
    /// The item's label.
    public var label: String

    /// A reply carrying `secret` and `label`.
    public init(secret: [UInt8], label: String) {
        self.secret = secret
        self.label = label
    }

    /// `[secret, label]`.
    public init?(fields: [[UInt8]]) {
        guard fields.count == 2 else { return nil }
        secret = fields[0]
        label = String(decoding: fields[1], as: UTF8.self)
    }

    public var fields: [[UInt8]] { [secret, Array(label.utf8)] }
}

/// The answer to `status`: ``AgentStatusReport`` as JSON text.
public struct AgentStatusReply: AgentReply {
    /// The JSON text's bytes.
    public var json: [UInt8]

    /// A reply carrying `json`.
    public init(json: [UInt8]) { self.json = json }

    /// One field.
    public init?(fields: [[UInt8]]) {
        guard fields.count == 1 else { return nil }
        json = fields[0]
    }

    public var fields: [[UInt8]] { [json] }
}

/// The answer to `lock`, `changed` and `rekeyed`: done, and nothing more.
public struct AgentEmptyReply: AgentReply {
    /// The reply.
    public init() {}

    /// No field.
    public init?(fields: [[UInt8]]) {
        guard fields.isEmpty else { return nil }
    }

    public var fields: [[UInt8]] { [] }
}
