// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import Foundation
import VaultAuth
import VaultStore
import VaultStoreCLI

/// `vault exec [--env NAME=ACCOUNT@SERVER]... [--token NAME=ACCOUNT@SERVER]... -- COMMAND [ARGS]`:
/// puts secrets and access tokens in a command's environment, then becomes the command.
///
/// Every value is fetched first (a missing item exits 1, a failed login 3, ... with one
/// line, and the command never starts); then vault replaces itself with the command
/// (`execvp`), so the process id, signals and exit status are the command's own, and no
/// secret is ever in an argument list.
struct ExecCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Run a command with secrets and access tokens in its environment.",
        usage: "vault exec [--env <binding>]... [--token <binding>]... [<options>]\n"
            + "  [--timeout <seconds>] -- <command> [<argument>...]",
        discussion: """
            Nothing secret goes in an argument list. Each value is loaded (and each token \
            refreshed, or logged in again) before the command starts; if one cannot be, \
            vault exits with its own code and the command never runs. Then vault becomes the \
            command (exec): same process id, the command's signals and exit status. A \
            command that cannot be run exits 127 (not found) or 126, as in a shell.

              vault exec --token GITHUB_TOKEN=deploy-bot@https://api.github.com \\
                  -- /usr/local/bin/deploy

            \(SharedOptionsTopic.pointer)
            """)

    @Option(name: .customLong("env"), help: ArgumentHelp("NAME=ACCOUNT@SERVER: NAME gets the item's secret (repeatable).", valueName: "binding"))
    var secrets: [String] = []

    @Option(
        name: .customLong("token"),
        help: ArgumentHelp("NAME=ACCOUNT@SERVER: NAME gets a valid access token of a `vault login` account (repeatable).", valueName: "binding"))
    var tokens: [String] = []

    @Option(help: ArgumentHelp("Seconds to wait for each HTTP request of a --token (default 30).", valueName: "seconds"))
    var timeout: Double?

    @OptionGroup(title: "Store options", visibility: .hidden) var backendChoice: BackendChoice
    @OptionGroup(title: "Store options", visibility: .hidden) var passphraseOption: PassphraseFileOption
    @OptionGroup(title: "Store options", visibility: .hidden) var keyCacheOption: KeyCacheOption
    @OptionGroup(title: "Keyring options", visibility: .hidden) var keyringOptions: KeyringPromptOptions
    @OptionGroup(title: "etcd options", visibility: .hidden) var etcdOptions: EtcdOptions
    var store: StoreOptions { StoreOptions(backendChoice, passphraseOption, keyCacheOption, keyringOptions, etcdOptions) }

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The command and its arguments, after --.", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        try store.validate()
        let names = try bindings().map(\.name)
        guard let program = command.first, !program.isEmpty else {
            throw ValidationError("give the command after --: vault exec [OPTIONS] -- COMMAND [ARGS]")
        }
        if let repeated = Dictionary(grouping: names, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw ValidationError("\(repeated) is given more than once")
        }
    }

    func bindings() throws(ValidationError) -> [ExecBinding] {
        var result: [ExecBinding] = []
        for text in secrets { result.append(try ExecBinding(parsing: text, kind: .secret, option: "--env")) }
        for text in tokens { result.append(try ExecBinding(parsing: text, kind: .token, option: "--token")) }
        return result
    }

    func run() async throws {
        var values: [(name: String, value: [UInt8])] = []
        try await reportingAuthErrors { () async throws(AuthError) in
            let bindings: [ExecBinding]
            do throws(ValidationError) { bindings = try self.bindings() } catch { throw .invalidRequest(error.message) }
            let requestTimeout = try AuthOptions.requestTimeout(seconds: timeout)
            for binding in bindings where binding.kind == .token { try AuthOptions.checkServer(binding.server, account: binding.account) }
            guard !bindings.isEmpty else { return }
            // Opened when a value needs it (a token the agent serves does not), once.
            var opened: (any SecureStore)?
            for binding in bindings {
                let value: [UInt8]
                if binding.kind == .token,
                    let token = AgentTokens.token(server: binding.server, account: binding.account, store: store, timeout: timeout)
                {
                    value = token.bytes
                } else {
                    // A key the user kept (`vault unlock`) may serve; exec itself leaves none behind.
                    let secureStore: any SecureStore
                    if let opened {
                        secureStore = opened
                    } else {
                        secureStore = try AuthOptions.openStore(store, addingCachedKeys: false)
                        opened = secureStore
                    }
                    value = try await fetch(binding, from: secureStore, requestTimeout: requestTimeout)
                }
                guard !value.contains(0) else {
                    throw .invalidRequest("the value for \(binding.name) holds a NUL byte, which an environment variable cannot")
                }
                guard binding.name.utf8.count + value.count + 2 <= ExecBinding.maximumEntrySize else {
                    throw .invalidRequest("the value for \(binding.name) is larger than the 128 KiB an environment variable can hold")
                }
                values.append((binding.name, value))
            }
        }
        ProcessReplacement.exec(command, setting: values)
    }

    /// The item's secret, or a valid access token.
    private func fetch(_ binding: ExecBinding, from secureStore: any SecureStore, requestTimeout: Duration) async throws(AuthError) -> [UInt8] {
        switch binding.kind {
        case .secret:
            let key = CredentialKey(server: ServerName.normalized(binding.server), account: binding.account)
            do throws(VaultError) {
                guard let credential = try secureStore.load(try key.validated()) else { throw .notFound(key) }
                return credential.secret.bytes
            } catch {
                throw .store(error)
            }
        case .token:
            let verbose = store.verbose
            let token = try await AuthOptions.withSession(
                server: binding.server, account: binding.account, requestTimeout: requestTimeout, secureStore: secureStore, options: store
            ) { session throws(AuthError) in
                try await session.tokenSource(onEvent: { EventReport.note($0, verbose: verbose) }).accessToken()
            }
            return token.bytes
        }
    }
}
