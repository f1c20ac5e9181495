// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import FoundationEssentials
import VaultStore

/// The `vault` executable: the store commands, run here, and every other command (the
/// sign-in ones: `login`, `token`, `request`, `logout`, `whoami`; the help) handed to
/// `vault-auth` by `exec`, the way `git` runs its helpers.
///
/// The store commands need neither networking nor Foundation, so `vault load` starts as
/// fast as `secret-tool` does; what only signing in needs (SwiftNIO, AsyncHTTPClient,
/// JWTKit) is loaded by `vault-auth` alone.
public struct StoreCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "vault", abstract: CommandLineSummary.abstract, discussion: CommandLineSummary.discussion,
        version: CommandLineSummary.version, subcommands: CommandLineSummary.storeCommands)

    public init() {}

    /// The store command names, and `--version`: what this executable answers itself.
    static let handledHere: Set<String> = Set(CommandLineSummary.storeCommands.compactMap { $0.configuration.commandName } + ["--version"])

    /// Runs `arguments` (without the program name): a store command here, anything else
    /// in `vault-auth`. Never returns.
    public static func main(arguments: [String]) -> Never {
        ArgumentText.requireUTF8()
        if arguments.isEmpty { CommandLineSummary.exitWithShortUsage() }
        SharedOptionsTopic.answer(arguments)
        // A completion script or a help dump must know every command: vault-auth's.
        let wholeCommandLine = arguments.contains { $0.hasPrefix("--generate-completion-script") || $0 == "--experimental-dump-help" }
        // The help without vault-auth: this executable's own (the store commands), and what is
        // missing, rather than no help at all (issue 38 §5.7).
        if ["--help", "-h", "help"].contains(arguments.first), arguments.count == 1, !AuthExecutable.isInstalled {
            Terminal.note(
                "\(AuthExecutable.path ?? "vault-auth") is missing: this help shows the store commands only; "
                    + "the sign-in commands (login, token, request, …) need vault-auth installed next to vault")
            CommandLineSummary.runToExit(Self.self, arguments: arguments)
        }
        guard let first = arguments.first, handledHere.contains(first), !wholeCommandLine,
            !needsAnotherBackend(arguments, environment: ProcessInfo.processInfo.environment)
        else {
            // `vault token` is served by the agent here when it can be, else handed over.
            let environment = ProcessInfo.processInfo.environment
            let askedAgent =
                arguments.first == "token" && !wholeCommandLine && AgentTokenFastPath.serve(Array(arguments.dropFirst()), variables: environment)
            AuthExecutable.replaceProcess(arguments: arguments, agentAsked: askedAgent)
        }
        AuthExecutable.forgetHandOver()
        CommandLineSummary.runToExit(Self.self, arguments: arguments)
    }

    /// True when the backend asked for (`--backend B`, `--backend=B`, else `VAULT_BACKEND`)
    /// lives in a module this executable does not link (etcd, with its networking): then
    /// `vault-auth`, which has every backend, runs the command. Nothing has been read yet.
    static func needsAnotherBackend(_ arguments: [String], environment: [String: String]) -> Bool {
        var requested = environment[StoreVariables.backend]
        var index = 1
        while index < arguments.count, arguments[index] != "--" {
            if arguments[index] == "--backend", index + 1 < arguments.count {
                requested = arguments[index + 1]
                index += 1
            } else if arguments[index].hasPrefix("--backend=") {
                requested = String(arguments[index].dropFirst("--backend=".count))
            }
            index += 1
        }
        guard let requested, let kind = BackendKind(rawValue: requested) else { return false }
        return kind != .auto && kind.backend == nil
    }
}
