// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import Foundation
import VaultAgentProtocol
import VaultAuth
import VaultStore
import VaultStoreCLI

/// `vault status [--json]`, as `gh auth status`: every logged-in account, from what the
/// store holds (no request is made), and whether each can still get a token without a person.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show every logged-in account and whether it can still get a token.",
        usage: "vault status [--json] [<options>]",
        discussion: """
            For each account that `vault login` logged in: its server and account, the \
            provider and grant, who signed in (OpenID Connect), when the access token expires, \
            whether a refresh token is kept and until when, when tokens were last received \
            (the login or the last refresh), whether the password is stored, a cool-down in \
            force after the stored credentials were rejected (VAULT_REAUTH_COOLDOWN), and \
            the backend. Only what is stored is read: no request is made, and no token is \
            ever shown.

            An account is usable when its access token is valid, its refresh token is alive, \
            or vault can log in again without a person (a stored password, or a client \
            secret, and no cool-down). Exit 0 when every account is usable; 1 when one needs \
            `vault login`, or none is logged in.

            --json prints one object: "backend", "backend_reason", "usable" (all of them) and \
            "accounts", each with "server", "account", "provider", "grant", "signed_in_as" \
            ({"sub", "name", "email", "issuer"} or null), "access_token_expires_at", \
            "access_token_valid", "refresh_token" (kept: true/false), \
            "refresh_token_expires_at" (null: not known), "last_refresh_at", \
            "password_stored", "cool_down_until" (null: none), "usable". Times are \
            RFC 3339, UTC.

            When `vault agent` answers, the text says what it does for each account, and \
            the JSON object has "agent" ({"version", "locked"}) and each account an "agent" \
            object: "kept", "state", "next_refresh_at", "last_refresh_at", "last_error".

            \(SharedOptionsTopic.pointer)
            """)

    @Flag(help: "Print one JSON object (field names above).")
    var json = false
    @OptionGroup(title: "Store options", visibility: .hidden) var backendChoice: BackendChoice
    @OptionGroup(title: "Store options", visibility: .hidden) var passphraseOption: PassphraseFileOption
    @OptionGroup(title: "Store options", visibility: .hidden) var keyCacheOption: KeyCacheOption
    @OptionGroup(title: "Keyring options", visibility: .hidden) var keyringOptions: KeyringPromptOptions
    @OptionGroup(title: "etcd options", visibility: .hidden) var etcdOptions: EtcdOptions
    var store: StoreOptions { StoreOptions(backendChoice, passphraseOption, keyCacheOption, keyringOptions, etcdOptions) }
    func validate() throws { try store.validate() }

    func run() async throws {
        let now = Date()
        var decision: BackendDecision?
        var statuses: [AccountStatus] = []
        var coolDown: TimeInterval = 0
        try await reportingAuthErrors { () async throws(AuthError) in
            do throws(VaultError) {
                coolDown = try ReauthenticationSettings.coolDown(store.variables)
                decision = try store.decision()
            } catch {
                throw .store(error)
            }
            let secureStore = try AuthOptions.openStore(store)
            for (server, account) in try AuthOptions.loggedInAccounts(in: secureStore) {
                do throws(AuthError) {
                    statuses.append(try await AccountStatus.read(AccountItems(store: secureStore, server: server, account: account)))
                } catch .store(.invalidInput(let why)) {
                    // One odd item (a name with a control character, written by another
                    // program) must not hide every other account: it is listed, unusable.
                    Terminal.note(TextEscaping.escaped("the items of \(account) on \(server) cannot be read: \(why)"))
                    statuses.append(.unreadable(server: server, account: account))
                }
            }
        }
        let report = StatusReport(statuses: statuses, now: now, coolDown: coolDown, agent: AgentStatusReport.ask(store.configuration))
        let backend = decision.map { ($0.kind.rawValue, $0.wordedReason) } ?? ("unknown", "")
        if json {
            Terminal.print(report.json(backend: backend.0, reason: backend.1))
        } else {
            for line in report.lines(backend: backend.0, reason: backend.1) { Terminal.print(TextEscaping.escaped(line)) }
        }
        if statuses.isEmpty { Terminal.note("no account is logged in; run vault login SERVER ACCOUNT") }
        guard report.allUsable, !statuses.isEmpty else { throw ExitCode(ExitStatus.notFound) }
    }
}
