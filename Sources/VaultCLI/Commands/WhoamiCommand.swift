// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import Foundation
import VaultAuth
import VaultStore
import VaultStoreCLI

struct WhoamiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami",
        abstract: "Show who an OpenID Connect account signed in as: the verified ID-token claims.",
        usage: "vault whoami [<server> <account>] [--json] [<options>]",
        discussion: """
            The claims are those of the ID token verified at sign-in (or at the last refresh \
            that brought one); no network request is made. Exit 1 when the account has no ID \
            token (it did not sign in with OpenID Connect). A Sign in with Apple profile that is \
            not registered yet (the name and e-mail address of the first sign-in) is shown too; \
            with --json under "pending_profile".

            \(SharedOptionsTopic.pointer)
            """)

    /// The `--json` key of the Sign in with Apple profile not yet registered (`name`, `email`).
    static let pendingProfileKey = "pending_profile"

    @Argument(
        help: ArgumentHelp(
            "The server's base URL and the account; or --server and --account. Left out: the only account logged in.", valueName: "server account"))
    var names: [String] = []
    @OptionGroup(title: "Sign-in options") var auth: AccountOptions
    @Flag(help: "Print every claim (and a pending profile, under pending_profile) as one JSON object.")
    var json = false
    @OptionGroup(title: "Store options", visibility: .hidden) var backendChoice: BackendChoice
    @OptionGroup(title: "Store options", visibility: .hidden) var passphraseOption: PassphraseFileOption
    @OptionGroup(title: "Store options", visibility: .hidden) var keyCacheOption: KeyCacheOption
    @OptionGroup(title: "Keyring options", visibility: .hidden) var keyringOptions: KeyringPromptOptions
    @OptionGroup(title: "etcd options", visibility: .hidden) var etcdOptions: EtcdOptions
    var store: StoreOptions { StoreOptions(backendChoice, passphraseOption, keyCacheOption, keyringOptions, etcdOptions) }

    mutating func validate() throws {
        try store.validate()
        try auth.take(names)
    }

    /// The `--json` output: every claim of `claims` (an ID token's verified payload) as
    /// ``ClaimsJSON`` reads it, and `pending` under ``pendingProfileKey`` (never a claim of
    /// that name); keys sorted, non-ASCII escaped.
    static func json(claims: [UInt8], pending: PendingProfile?) -> String {
        var object = (try? JSONDecoder().decode([String: ClaimsJSON].self, from: Data(claims))) ?? [:]
        object[pendingProfileKey] = nil
        if let pending, !pending.isEmpty {
            var profile: [String: ClaimsJSON] = [:]
            profile["name"] = pending.name.map(ClaimsJSON.string)
            profile["email"] = pending.email.map(ClaimsJSON.string)
            object[pendingProfileKey] = .object(profile)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(object)) ?? Data()
        return ASCIIJSON.escaped(String(decoding: data, as: UTF8.self))
    }

    func run() async throws {
        var found: IDTokenClaims?
        var pending: PendingProfile?
        var who = (server: "", account: "")
        try await reportingAuthErrors { () async throws(AuthError) in
            (found, pending, who) = try await auth.withSession(store) { session throws(AuthError) in
                (
                    try await session.identity(), try await session.settings().pendingProfile,
                    (server: session.items.server, account: session.items.account)
                )
            }
        }
        guard let claims = found else {
            Terminal.note("\(who.account) at \(who.server) has no ID token (not an OpenID Connect sign-in)")
            throw ExitCode(ExitStatus.notFound)
        }
        if json {
            Terminal.print(Self.json(claims: claims.json, pending: pending))
            return
        }
        let formatter = ISO8601DateFormatter()
        var lines = ["sub: \(claims.subject)"]
        if let email = claims.email { lines.append("email: \(email)") }
        if let verified = claims.emailVerified { lines.append("email verified: \(verified)") }
        if let relay = claims.isPrivateEmail { lines.append("private relay address: \(relay)") }
        if let name = claims.name { lines.append("name: \(name)") }
        lines += [
            "iss: \(claims.issuer)", "aud: \(claims.audiences.joined(separator: " "))",
            "issued: \(formatter.string(from: claims.issuedAt))", "expires: \(formatter.string(from: claims.expiresAt))",
        ]
        // Sign in with Apple: what the first sign-in gave, until the registration is marked done.
        if let name = pending?.name { lines.append("pending name (not yet registered): \(name)") }
        if let email = pending?.email { lines.append("pending email (not yet registered): \(email)") }
        for line in lines { Terminal.print(TextEscaping.escaped(line)) }
    }
}
