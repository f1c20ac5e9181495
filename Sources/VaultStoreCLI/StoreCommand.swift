// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser

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
        // A completion script or a help dump must know every command: vault-auth's.
        let wholeCommandLine = arguments.contains { $0.hasPrefix("--generate-completion-script") || $0 == "--experimental-dump-help" }
        guard let first = arguments.first, handledHere.contains(first), !wholeCommandLine else {
            AuthExecutable.replaceProcess(arguments: arguments)
        }
        AuthExecutable.forgetHandOver()
        CommandLineSummary.runToExit(Self.self, arguments: arguments)
    }
}
