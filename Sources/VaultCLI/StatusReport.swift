// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultAgentProtocol
import VaultAuth
import VaultStore
import VaultStoreCLI

/// The words of `vault status`: lines for people, or one JSON object with stable field
/// names (the command's help lists them). Built from ``AccountStatus``, so no token can
/// reach it.
struct StatusReport {
    let statuses: [AccountStatus]
    let now: Date
    let coolDown: TimeInterval
    /// What `vault agent` said of the accounts, when one answered.
    var agent: AgentStatusReport?

    /// True when every account is usable.
    var allUsable: Bool { statuses.allSatisfy { $0.isUsable(at: now, coolDown: coolDown) } }

    private static func time(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// `in 5m`, `2h ago`: how far `date` is from now.
    func relative(_ date: Date) -> String {
        // Clamped: a stored expiry far in the future (1e297 s) must not trap the conversion.
        let seconds = Int(max(-1e15, min(1e15, date.timeIntervalSince(now))).rounded())
        let magnitude = abs(seconds)
        let text: String
        switch magnitude {
        case ..<120: text = "\(magnitude)s"
        case ..<7200: text = "\(magnitude / 60)m"
        case ..<172_800: text = "\(magnitude / 3600)h"
        default: text = "\(magnitude / 86400)d"
        }
        return seconds >= 0 ? "in \(text)" : "\(text) ago"
    }

    private func dated(_ date: Date) -> String { "\(Self.time(date)) (\(relative(date)))" }

    /// The lines for people: the backend, then a block for each account.
    func lines(backend: String, reason: String) -> [String] {
        var lines = ["backend: \(backend)\(reason.isEmpty ? "" : " (\(reason))")"]
        if let agent { lines.append("agent: \(agent.agent), \(agent.locked ? "locked (no key held)" : "running")") }
        for status in statuses {
            let usable = status.isUsable(at: now, coolDown: coolDown)
            lines.append("")
            lines.append("\(status.server) \(status.account): \(usable ? "usable" : "needs vault login")")
            if let settings = status.settings {
                lines.append("  provider:       \(settings.provider.rawValue), grant \(settings.grant.rawValue)")
            } else {
                lines.append("  provider:       unknown (the login settings are missing)")
            }
            if let who = status.identity { lines.append("  signed in as:   \(who.who)") }
            if let expiry = status.accessTokenExpiry {
                lines.append("  access token:   \(status.accessTokenIsValid(at: now) ? "valid until" : "expired") \(dated(expiry))")
            } else {
                lines.append("  access token:   none")
            }
            let refresh =
                !status.hasRefreshToken
                ? "none" : status.refreshTokenExpiry.map { "kept, \(now < $0 ? "valid until" : "expired") \(dated($0))" } ?? "kept (expiry not known)"
            lines.append("  refresh token:  \(refresh)")
            if let obtained = status.obtainedAt { lines.append("  last refresh:   \(dated(obtained))") }
            lines.append("  password:       \(status.hasPassword ? "stored" : "not stored")")
            if let end = status.coolDownEnd(at: now, coolDown: coolDown) {
                lines.append("  cool-down:      the stored credentials were rejected; not tried again until \(dated(end))")
            }
            if let agent { lines += agentLines(agent.account(server: status.server, account: status.account)) }
        }
        return lines
    }

    /// What the agent does with a kept account, in words, from its status's `state`.
    static func words(forState state: String?) -> String {
        switch state {
        case "kept", nil: "keeps it alive (refreshes ahead of expiry)"
        case "needs login": "stopped: it needs a person to log in again (vault login)"
        case "locked": "waiting: the vault is locked (vault unlock)"
        case let other?: "kept (\(TextEscaping.escaped(other)))"
        }
    }

    /// The agent's lines of one account's block.
    private func agentLines(_ kept: AgentStatusReport.Account?) -> [String] {
        guard let kept, kept.kept else { return ["  agent:          not kept alive (it serves the account only when asked)"] }
        var lines = ["  agent:          \(Self.words(forState: kept.state))"]
        lines.append("  next refresh:   \(kept.nextRefresh.map(dated) ?? "none planned")")
        if let last = kept.lastRefresh { lines.append("  agent refresh:  \(dated(last))") }
        if let error = kept.lastError { lines.append("  agent error:    \(error)") }
        return lines
    }

    /// The agent object of one account in the JSON output.
    private static func agentObject(_ kept: AgentStatusReport.Account?) -> [String: Any] {
        [
            "kept": kept?.kept ?? false, "state": value(kept?.state), "next_refresh_at": value(kept?.nextRefresh.map(time)),
            "last_refresh_at": value(kept?.lastRefresh.map(time)), "last_error": value(kept?.lastError),
        ]
    }

    /// `text`, or JSON's null.
    private static func value(_ text: String?) -> Any { text.map { $0 as Any } ?? NSNull() }

    /// One JSON object (ASCII, keys sorted).
    func json(backend: String, reason: String) -> String {
        let accounts: [[String: Any]] = statuses.map { status in
            let coolDownEnd = status.coolDownEnd(at: now, coolDown: coolDown)
            var object: [String: Any] = [
                "server": status.server, "account": status.account, "provider": Self.value(status.settings?.provider.rawValue),
                "grant": Self.value(status.settings?.grant.rawValue),
                "access_token_expires_at": Self.value(status.accessTokenExpiry.map(Self.time)),
                "access_token_valid": status.accessTokenIsValid(at: now), "refresh_token": status.hasRefreshToken,
                "refresh_token_expires_at": Self.value(status.refreshTokenExpiry.map(Self.time)),
                "last_refresh_at": Self.value(status.obtainedAt.map(Self.time)), "password_stored": status.hasPassword,
                "cool_down_until": Self.value(coolDownEnd.map(Self.time)), "usable": status.isUsable(at: now, coolDown: coolDown),
            ]
            if let agent { object["agent"] = Self.agentObject(agent.account(server: status.server, account: status.account)) }
            if let who = status.identity {
                var identity: [String: Any] = ["sub": who.subject, "issuer": who.issuer]
                identity["name"] = who.name
                identity["email"] = who.email
                object["signed_in_as"] = identity
            } else {
                object["signed_in_as"] = NSNull()
            }
            return object
        }
        var root: [String: Any] = ["backend": backend, "backend_reason": reason, "usable": allUsable && !statuses.isEmpty, "accounts": accounts]
        if let agent { root["agent"] = ["version": agent.agent, "locked": agent.locked] }
        let data = (try? JSONSerialization.data(withJSONObject: root, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])) ?? Data()
        return ASCIIJSON.escaped(String(decoding: data, as: UTF8.self))
    }
}
