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

    /// What the agent does with one account, for the JSON output.
    private static func keptAccount(_ kept: AgentStatusReport.Account?) -> StatusJSON.KeptAccount {
        StatusJSON.KeptAccount(
            kept: kept?.kept ?? false, state: kept?.state, nextRefreshAt: kept?.nextRefresh.map(time),
            lastRefreshAt: kept?.lastRefresh.map(time), lastError: kept?.lastError)
    }

    /// One JSON object (ASCII, keys sorted).
    func json(backend: String, reason: String) -> String {
        let accounts = statuses.map { status in
            StatusJSON.Account(
                server: status.server, account: status.account, provider: status.settings?.provider.rawValue,
                grant: status.settings?.grant.rawValue, accessTokenExpiresAt: status.accessTokenExpiry.map(Self.time),
                accessTokenValid: status.accessTokenIsValid(at: now), refreshToken: status.hasRefreshToken,
                refreshTokenExpiresAt: status.refreshTokenExpiry.map(Self.time), lastRefreshAt: status.obtainedAt.map(Self.time),
                passwordStored: status.hasPassword, coolDownUntil: status.coolDownEnd(at: now, coolDown: coolDown).map(Self.time),
                usable: status.isUsable(at: now, coolDown: coolDown),
                signedInAs: status.identity.map { StatusJSON.Identity(sub: $0.subject, issuer: $0.issuer, name: $0.name, email: $0.email) },
                agent: agent.map { Self.keptAccount($0.account(server: status.server, account: status.account)) })
        }
        let report = StatusJSON(
            backend: backend, backendReason: reason, usable: allUsable && !statuses.isEmpty, accounts: accounts,
            agent: agent.map { StatusJSON.Agent(version: $0.agent, locked: $0.locked) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let data = (try? encoder.encode(report)) ?? Data()
        return ASCIIJSON.escaped(String(decoding: data, as: UTF8.self))
    }
}
