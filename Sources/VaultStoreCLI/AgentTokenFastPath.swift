// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import FoundationEssentials
import VaultAgentProtocol
import VaultStore

/// `vault token` served by `vault agent` in the small `vault` executable, before it hands
/// the command to `vault-auth`: one socket round trip, no store opened, no D-Bus, no JSON.
///
/// Only a command line it understands whole is served here: the server and account
/// (positionally, or `--server`/`--account`), `-v`, and the store options that only choose
/// the store (`--backend`, `--file`, the etcd ones). Anything else (another option, a name
/// left out, `--` ...) is handed over as it is, and `vault-auth` decides.
package enum AgentTokenFastPath {
    /// The store options read here, each with a value: those that choose the store (its
    /// ``StoreConfiguration/agentStoreKey``), and the etcd connection's, which do not
    /// change what the agent serves.
    private static let storeOptions: Set<String> = [
        "--backend", "--file", "--etcd-endpoints", "--etcd-prefix", "--etcd-cacert", "--etcd-cert", "--etcd-key", "--etcd-user",
        "--etcd-password-file",
    ]

    /// What a `vault token` command line asks for, when it is understood whole.
    package struct Parsed: Equatable {
        package var server: String
        package var account: String
        package var verbose: Bool
        package var options: [String: String]
        package var insecureHTTP: Bool
    }

    /// Serves `vault token ARGUMENTS` (without `token`) from the agent when it may be asked
    /// (``AgentAccess/forServing(_:)``) and answers: prints the token and exits 0. Returns
    /// whether the agent was asked (then `vault-auth` must not ask it again).
    static func serve(_ arguments: [String], variables: [String: String]) -> Bool {
        guard let parsed = parse(arguments) else { return false }
        let configuration = configuration(parsed, variables: variables)
        guard let agent = AgentAccess.forServing(configuration) else { return false }
        let request = AgentRequest.token(
            store: configuration.agentStoreKey, server: ServerName.normalized(parsed.server), account: parsed.account, rejected: nil)
        guard let token = agent.token(request) else { return true }
        agent.served("the token")
        Terminal.write(token + [0x0A])
        Terminal.exit(ExitStatus.success)
    }

    /// The store options of `parsed` over `variables`.
    static func configuration(_ parsed: Parsed, variables: [String: String]) -> StoreConfiguration {
        var configuration = StoreConfiguration(variables: variables)
        configuration.verbose = parsed.verbose
        configuration.backend = parsed.options["--backend"].flatMap(BackendKind.init(rawValue:))
        configuration.file = parsed.options["--file"]
        configuration.etcdEndpoints = parsed.options["--etcd-endpoints"]
        configuration.etcdPrefix = parsed.options["--etcd-prefix"]
        configuration.etcdInsecureHttp = parsed.insecureHTTP
        return configuration
    }

    /// `arguments` understood whole, or nil (then nothing is served here).
    package static func parse(_ arguments: [String]) -> Parsed? {
        var positionals: [String] = []
        var names: [String: String] = [:]
        var options: [String: String] = [:]
        var verbose = false
        var insecureHTTP = false
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if word == "-v" || word == "--verbose" {
                verbose = true
                continue
            }
            if word == "--etcd-insecure-http" {
                insecureHTTP = true
                continue
            }
            guard word.hasPrefix("-") else {
                positionals.append(word)
                continue
            }
            let name: String
            let value: String
            if let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                value = String(word[word.index(after: equals)...])
            } else {
                guard index < arguments.count else { return nil }
                name = word
                value = arguments[index]
                index += 1
            }
            // A value that looks like an option is left to the argument parser's rules.
            guard !value.hasPrefix("-") else { return nil }
            if name == "--server" || name == "--account" {
                guard names[name] == nil else { return nil }
                names[name] = value
            } else if storeOptions.contains(name) {
                guard options[name] == nil else { return nil }
                options[name] = value
            } else {
                return nil
            }
        }
        if let backend = options["--backend"], BackendKind(rawValue: backend) == nil { return nil }
        var rest = positionals[...]
        guard let server = names["--server"] ?? rest.popFirst(), let account = names["--account"] ?? rest.popFirst(), rest.isEmpty,
            !account.isEmpty, isServerURL(server)
        else { return nil }
        return Parsed(server: server, account: account, verbose: verbose, options: options, insecureHTTP: insecureHTTP)
    }

    /// True for what looks like a server's base URL (`http://` or `https://`, a host, no
    /// query or fragment); `vault-auth` checks anything else and says what is wrong.
    static func isServerURL(_ server: String) -> Bool {
        let lowered = server.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lowered.hasPrefix($0) }) else { return false }
        let rest = server.dropFirst(scheme.count)
        return !rest.isEmpty && !rest.hasPrefix("/") && !server.contains("?") && !server.contains("#") && !server.contains("@")
    }
}
