// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultEtcd
import VaultStore
import VaultStoreCLI

/// The `vault` command with every subcommand: what `vault-auth` runs (and what `vault`
/// hands it for the commands it does not run itself: signing in, tokens, requests, help).
public struct VaultCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "vault", abstract: CommandLineSummary.abstract, discussion: CommandLineSummary.discussion,
        version: CommandLineSummary.version,
        subcommands: CommandLineSummary.storeCommands + [
            LoginCommand.self, StatusCommand.self, TokenCommand.self, RequestCommand.self, LogoutCommand.self, WhoamiCommand.self, ExecCommand.self,
            AgentCommand.self,
        ]
    )

    public init() {}

    /// Parses the arguments, runs the command and exits with the documented exit codes
    /// (argument errors exit 2, not swift-argument-parser's 64).
    public static func runAndExit(_ arguments: [String]? = nil) async -> Never {
        AuthExecutable.forgetHandOver()
        BackendRegistry.register(EtcdBackend.self)
        EtcdSettings.register()
        ArgumentText.requireUTF8()
        ProcessHardening.apply()
        JournalLogHandler.bootstrap()
        let given = arguments ?? Array(CommandLine.arguments.dropFirst())
        if given.isEmpty { CommandLineSummary.exitWithShortUsage() }
        SharedOptionsTopic.answer(given, commands: configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"])
        CommandLineSummary.refuseMisreadShortOptions(Self.self, arguments: given)
        do {
            var command = try parseAsRoot(given)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Terminal.exit(ExitStatus.success)
        } catch {
            CommandLineSummary.exit(after: error, of: Self.self, arguments: given)
        }
    }
}
