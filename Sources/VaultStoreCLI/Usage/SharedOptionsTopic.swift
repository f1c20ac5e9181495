// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser

/// `vault help options`: the store, keyring and etcd options that every command reading a
/// store shares, documented once here instead of in each command's `--help` (where they are
/// hidden, and still accepted).
///
/// The text comes from the option groups themselves, so it cannot drift from what the
/// commands parse.
package struct SharedOptionsTopic: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "options",
        abstract: "Options shared by the item and sign-in commands.",
        discussion: """
            save, load, remove, list, login, status, token, request, logout, whoami, exec and \
            agent take them after their own options; passwd, backend, lock and unlock show the \
            few they take in their own help. They choose the store (--backend, --file), open the \
            vault file (--passphrase-file, --no-key-cache), bound the keyring's prompts and reach \
            an etcd fleet. Each has an environment variable, named in its line; an option given wins.
            """)

    /// The line each command's help ends with, in place of these options.
    package static let pointer = "Shared store options (--backend, --file, -v, ...): see vault help options"

    /// The topic's name after `help`.
    package static let name = "options"

    package init() {}

    @OptionGroup(title: "Store options") var backendChoice: BackendChoice
    @OptionGroup(title: "Store options") var passphraseOption: PassphraseFileOption
    @OptionGroup(title: "Store options") var keyCacheOption: KeyCacheOption
    @OptionGroup(title: "Keyring options") var keyringOptions: KeyringPromptOptions
    @OptionGroup(title: "etcd options") var etcdOptions: EtcdOptions

    /// The topic's text, at most `columns` wide: the overview and the option groups, without
    /// the usage line and `--help` that a command's help would add.
    package static func text(columns: Int = 80) -> String {
        let help = helpMessage(columns: columns)
        var lines: [Substring] = []
        var skipping = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("USAGE:") || line == "OPTIONS:" {
                skipping = true
                continue
            }
            if skipping {
                if line.isEmpty { skipping = false }
                continue
            }
            lines.append(line)
        }
        var text = lines.joined(separator: "\n")
        while text.hasSuffix("\n") { text.removeLast() }
        return text.replacing("OVERVIEW: ", with: "vault help options: ") + "\n"
    }

    /// Answers `vault help options` (and its `-h`) on standard output, exit 0; refuses more
    /// words after it, and, given the `commands` there are (vault-auth knows them all), a
    /// topic that is neither one of them nor `options`, with one line and exit 2. Returns for
    /// anything else: the parser's help command answers `vault help COMMAND`.
    package static func answer(_ arguments: [String], commands: [String]? = nil) {
        guard arguments.first == "help", arguments.count >= 2 else { return }
        let topic = arguments[1]
        if topic == name {
            guard arguments.count == 2 || (arguments.count == 3 && ["-h", "--help"].contains(arguments[2])) else {
                Terminal.note("too many arguments after 'help options' (see vault --help)", priority: .error)
                Terminal.exit(ExitStatus.usage)
            }
            Terminal.write(Array(text().utf8))
            Terminal.exit(ExitStatus.success)
        }
        guard let commands, !topic.hasPrefix("-"), !commands.contains(topic) else { return }
        let hint = Suggestion.nearest(to: topic, in: commands + [name]).map { "; did you mean '\($0)'?" } ?? ""
        Terminal.note("unknown help topic '\(UsageMessage.shown(topic))'\(hint) (see vault --help)", priority: .error)
        Terminal.exit(ExitStatus.usage)
    }
}
