// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser
import VaultStore

/// What both roots of the `vault` command say of it, and the store commands they share.
public enum CommandLineSummary {
    public static let version = VaultRelease.version
    public static let abstract = "Keep credentials safe: in the Secret Service keyring, or in an encrypted file."
    /// The first commands a person types (the README's quick start runs each of them).
    public static let examples = """
          printf %s "$TOKEN" | vault save https://api.example.com ci
          vault load https://api.example.com ci
          printf %s "$PW" | vault login https://auth.example.com alice
          vault request https://auth.example.com alice /api/get_devs
          vault token https://auth.example.com alice
        """

    public static let discussion = """
        Items are keyed by server and account, like internet passwords in a keychain. \
        Secrets are read from standard input or the terminal, never from arguments.

        \(examples)

        Each command's own options: vault <command> --help. The store, keyring and etcd \
        options the item and sign-in commands share: vault help options.

        Exit codes: 0 success; 1 not found (an unknown account; status: an account needs vault login); \
        2 bad usage or input; 3 authentication failure (wrong passphrase, damaged or \
        modified vault file, locked keyring, a keyring prompt not answered, a session \
        that has ended); 4 backend unavailable (or unsafe file permissions, a lock held \
        too long, output that cannot be written); 5 network or server error; exec: 126 \
        the command cannot be run, 127 it is not found; 130 interrupted (Ctrl-C), 143 \
        terminated (SIGTERM): a sign-in exits so, other commands die of the signal, \
        which a shell reports with the same numbers.
        """

    /// What `vault` with no arguments prints (on stderr, exit 2): the commands, and where
    /// the manual is. The whole help is `vault --help`.
    public static let shortUsage = """
        usage: vault <command> [<server> <account>] [<options>]

        \(examples)

        store:    save, load, remove, list, passwd, backend, lock, unlock
        sign-in:  login, status, token, request, whoami, logout, exec, agent

        see vault --help, vault <command> --help, or vault help options

        """

    /// Prints ``shortUsage`` on stderr and exits 2, as a command line without a command is.
    public static func exitWithShortUsage() -> Never {
        Terminal.writeError(shortUsage)
        Terminal.exit(ExitStatus.usage)
    }

    /// The store commands, in the order `vault --help` lists them.
    public static let storeCommands: [any ParsableCommand.Type] = [
        SaveCommand.self, LoadCommand.self, RemoveCommand.self, ListCommand.self, PasswdCommand.self, BackendCommand.self,
        LockCommand.self, UnlockCommand.self,
    ]

    /// Hardens the process (``ProcessHardening``), parses `arguments` as `Root`'s command line,
    /// runs the command, and exits: 0, or as ``exit(after:of:arguments:)`` says.
    package static func runToExit<Root: ParsableCommand>(_ root: Root.Type, arguments: [String]) -> Never {
        ProcessHardening.apply()
        refuseMisreadShortOptions(Root.self, arguments: arguments)
        do {
            var command = try Root.parseAsRoot(arguments)
            try command.run()
            Terminal.exit(ExitStatus.success)
        } catch {
            exit(after: error, of: Root.self, arguments: arguments)
        }
    }

    /// Exits 2 with one line when `arguments` hold a single-dash word the parser would read
    /// as grouped short options (``UsageMessage/misreadShortOptions(_:of:)``); returns otherwise.
    public static func refuseMisreadShortOptions<Root: ParsableCommand>(_ root: Root.Type, arguments: [String]) {
        guard let line = UsageMessage.misreadShortOptions(arguments, of: Root.self) else { return }
        Terminal.note(line, priority: .error)
        Terminal.exit(ExitStatus.usage)
    }

    /// Ends the process for an error of parsing or running `Root`: an `ExitCode` as it is;
    /// help and version requests print and exit 0 (4 when standard output cannot be written); bad usage is one line on stderr
    /// pointing at the command's help (``UsageMessage``), and exit 2 (not swift-argument-parser's 64).
    /// `arguments` is the command line that was parsed, without the program name.
    public static func exit<Root: ParsableCommand>(after error: any Error, of root: Root.Type, arguments: [String]) -> Never {
        if let code = error as? ExitCode { Terminal.exit(code.rawValue) }
        if Root.exitCode(for: error) == .success {
            // Help and version, written as every command's output is: a closed or full
            // standard output is one line and exit 4, never a silent 0.
            var text = Root.fullMessage(for: error)
            if !text.hasSuffix("\n") { text += "\n" }
            Terminal.write(Array(text.utf8))
            Terminal.exit(ExitStatus.success)
        }
        Terminal.note(UsageMessage.line(for: error, of: Root.self, arguments: arguments), priority: .error)
        Terminal.exit(ExitStatus.usage)
    }
}
