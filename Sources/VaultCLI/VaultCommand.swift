// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import Foundation
import Logging
import VaultStore

/// The `vault` command: a KeyChain-style credential store for Linux.
public struct VaultCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "vault",
        abstract: "Keep credentials safe: in the Secret Service keyring, or in an encrypted file.",
        discussion: """
            Items are keyed by server and account, like internet passwords in a keychain. \
            Secrets are read from standard input or the terminal, never from arguments.

            Exit codes: 0 success; 1 not found; 2 bad usage or input; 3 authentication \
            failure (wrong passphrase, damaged or modified vault file, locked keyring, a \
            keyring prompt not answered); 4 backend unavailable (or unsafe file permissions, \
            a lock held too long, output that cannot be written); 5 network or server error.
            """,
        version: "0.1.0",
        subcommands: [
            SaveCommand.self, LoadCommand.self, RemoveCommand.self, ListCommand.self, PasswdCommand.self,
            BackendCommand.self, LoginCommand.self, TokenCommand.self, RequestCommand.self, LogoutCommand.self, WhoamiCommand.self,
            LockCommand.self, UnlockCommand.self,
        ]
    )

    public init() {}

    /// Parses the arguments, runs the command and exits with the documented exit codes
    /// (argument errors exit 2, not swift-argument-parser's 64).
    public static func runAndExit(_ arguments: [String]? = nil) async -> Never {
        ProcessHardening.apply()
        LoggingSystem.bootstrap { label in StreamLogHandler.standardError(label: label) }
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Foundation.exit(0)
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success { self.exit(withError: error) }
            // Bad usage: one line, like every other error, pointing at the help.
            let message = self.message(for: error).split(whereSeparator: \.isNewline).first.map(String.init) ?? "bad usage"
            FileHandle.standardError.write(
                Data("vault: \(TextEscaping.escaped(message)) (see vault --help)\n".utf8))
            Foundation.exit(ExitStatus.usage)
        }
    }
}
