// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import ArgumentParser

/// The one line a usage error becomes, for both executables: lower case, no trailing
/// period, and a pointer to the help of the command at fault.
///
/// A mistyped command or option is named before anything else (with the nearest real
/// name, `did you mean '--server'?`): swift-argument-parser would otherwise first report
/// the required option that the typo left out. Everything else is its message, restyled.
package enum UsageMessage {
    /// The line for `error`, thrown while parsing `arguments` (without the program name)
    /// as `Root`'s command line; without the `vault: ` prefix.
    package static func line<Root: ParsableCommand>(for error: any Error, of root: Root.Type, arguments: [String]) -> String {
        let program = Root.configuration.commandName ?? "vault"
        let commands = Root.configuration.subcommands
        let commandNames = commands.compactMap { $0.configuration.commandName }
        let rootHelp = "(see \(program) --help)"
        if commands.isEmpty { return commandLine(for: error, of: Root.self, Root.self, arguments: arguments, help: rootHelp) }
        guard let first = arguments.first else { return "\(restyled(Root.message(for: error))) \(rootHelp)" }
        if !first.hasPrefix("-") {
            guard let command = commands.first(where: { $0.configuration.commandName == first }) else {
                if first == "help" { return "\(restyled(Root.message(for: error))) \(rootHelp)" }
                let hint = Suggestion.nearest(to: first, in: commandNames).map { "; did you mean '\($0)'?" } ?? ""
                return "unknown command '\(shown(first))'\(hint) \(rootHelp)"
            }
            return commandLine(
                for: error, of: Root.self, command, arguments: Array(arguments.dropFirst()), help: "(see \(program) \(first) --help)")
        }
        let rootOptions = ["--help", "-h", "--version"]
        // `vault -v list`: a command's option before the command.
        if !rootOptions.contains(first), let command = arguments.first(where: { commandNames.contains($0) }) {
            return "unknown option '\(shown(first))' before the command; options go after it: \(program) \(command) \(shown(first)) "
                + "(see \(program) \(command) --help)"
        }
        if !rootOptions.contains(first), first.count > 1, !first.hasPrefix("--generate-completion-script") {
            let hint = first.hasPrefix("--") ? Suggestion.nearest(to: first, in: ["--help", "--version"]) : nil
            return "unknown option '\(shown(first))'\(hint.map { "; did you mean '\($0)'?" } ?? "") \(rootHelp)"
        }
        return "\(restyled(Root.message(for: error))) \(rootHelp)"
    }

    /// The line for an error in the arguments of `command` (a subcommand of `Root`, or
    /// `Root` itself): the first unknown option, else the parser's message; then `pointer`.
    private static func commandLine<Root: ParsableCommand>(
        for error: any Error, of root: Root.Type, _ command: any ParsableCommand.Type, arguments: [String], help pointer: String
    ) -> String {
        let isRoot = ObjectIdentifier(command) == ObjectIdentifier(Root.self)
        // Hidden options count: the shared store options are hidden from each command's help
        // (``SharedOptionsTopic``) and still accepted.
        let text =
            isRoot ? Root.helpMessage(includeHidden: true, columns: 10_000) : Root.helpMessage(for: command, includeHidden: true, columns: 10_000)
        let known = optionNames(text)
        if let unknown = firstUnknownOption(arguments, known: known) {
            let hint =
                unknown.hasPrefix("--")
                ? Suggestion.nearest(to: unknown, in: known.filter { $0.hasPrefix("--") })
                : known.contains("-" + unknown) ? "-" + unknown : nil
            return "unknown option '\(shown(unknown))'\(hint.map { "; did you mean '\($0)'?" } ?? "") \(pointer)"
        }
        return "\(restyled(Root.message(for: error))) \(pointer)"
    }

    /// The line for a single-dash word that swift-argument-parser would misread as grouped
    /// short options, nil when there is none: `-passphrase-file` (when `--passphrase-file`
    /// is meant) or `-hunter2` holds an `h`, which the parser takes for `-h` and answers with
    /// the help and exit 0, so the command silently did nothing (attack review 58). A word
    /// made only of the command's short option letters (`-vv`) is left to the parser.
    package static func misreadShortOptions<Root: ParsableCommand>(_ arguments: [String], of root: Root.Type) -> String? {
        let program = Root.configuration.commandName ?? "vault"
        var rest = arguments[...]
        var text: () -> String
        var pointer = "(see \(program) --help)"
        if let first = arguments.first, !first.hasPrefix("-"),
            let command = Root.configuration.subcommands.first(where: { $0.configuration.commandName == first })
        {
            rest = arguments.dropFirst()
            text = { Root.helpMessage(for: command, includeHidden: true, columns: 10_000) }
            pointer = "(see \(program) \(first) --help)"
        } else if Root.configuration.subcommands.isEmpty {
            text = { Root.helpMessage(includeHidden: true, columns: 10_000) }
        } else {
            // Words before the command (`vault -check agent`): the root knows -h alone.
            let commandNames = Set(Root.configuration.subcommands.compactMap { $0.configuration.commandName })
            let command = arguments.first(where: { commandNames.contains($0) })
            for argument in arguments.prefix(while: { !commandNames.contains($0) && $0 != "--" }) {
                guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count >= 3 else { continue }
                let name = String(argument.prefix { $0 != "=" })
                guard let command else { return "unknown option '\(shown(name))' \(pointer)" }
                return "unknown option '\(shown(name))' before the command; options go after it: \(program) \(command) \(shown(name)) "
                    + "(see \(program) \(command) --help)"
            }
            return nil
        }
        // Rendering the help costs a parse of the command's options: only when a word could be misread.
        let candidates = rest.prefix { $0 != "--" }.filter { $0.hasPrefix("-") && !$0.hasPrefix("--") && $0.count >= 3 }
        if candidates.isEmpty { return nil }
        let known = optionNames(text())
        let letters = Set(known.filter { $0.count == 2 && !$0.hasPrefix("--") }.compactMap(\.last))
        for argument in rest {
            if argument == "--" { return nil }
            guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count >= 3 else { continue }
            let name = String(argument.prefix { $0 != "=" })
            if name.dropFirst().allSatisfy({ letters.contains($0) }) { continue }
            let hint = known.contains("-" + name) ? "; did you mean '-\(name)'?" : ""
            return "unknown option '\(shown(name))'\(hint) \(pointer)"
        }
        return nil
    }

    /// A word the user typed, as an error line shows it: at most 64 characters (a longer one
    /// is cut, with `…`), so a huge argument gives one short line.
    package static func shown(_ word: String) -> String {
        // Unicode scalars, not characters: one character may hold any number of combining marks.
        word.unicodeScalars.count <= 64 ? word : String(String.UnicodeScalarView(word.unicodeScalars.prefix(64))) + "…"
    }

    /// The option names (`--server`, `-v`) that a command's help text lists.
    static func optionNames(_ help: String) -> Set<String> {
        var names: Set<String> = ["--help", "-h"]
        for line in help.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("-"), line.count - trimmed.count <= 4 else { continue }
            let label = trimmed.split(separator: "  ", maxSplits: 1, omittingEmptySubsequences: false).first ?? trimmed
            for part in label.split(separator: ",") {
                let word = part.trimmingPrefix(" ").prefix { $0 != " " && $0 != "=" && $0 != "<" }
                if word.count > 1, word.hasPrefix("-") { names.insert(String(word)) }
            }
        }
        return names
    }

    /// The first option in `arguments` (before a `--`) that is not one of `known`: a long
    /// option (`--sever`, `--sever=x`), a single-letter one (`-q`), or a long one typed with
    /// one dash (`-backend`, when `--backend` is known); nil when there is none.
    static func firstUnknownOption(_ arguments: [String], known: Set<String>) -> String? {
        for argument in arguments {
            if argument == "--" { return nil }
            if argument.hasPrefix("--"), argument.count > 2 {
                let name = String(argument.prefix { $0 != "=" })
                if !known.contains(name) { return name }
            } else if argument.count == 2, argument.hasPrefix("-"), let letter = argument.last, letter.isLetter,
                !known.contains(argument)
            {
                return argument
            } else if argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 2 {
                let name = String(argument.prefix { $0 != "=" })
                if known.contains("-" + name) { return name }
            }
        }
        return nil
    }

    /// `message` with the value swift-argument-parser quotes (`The value '…' is invalid
    /// for '--backend'`) cut as ``shown(_:)`` cuts a word: it may be a secret pasted in the
    /// wrong place, and it may be huge (attack review 58). Control characters are escaped
    /// when the line is written. (vault's own messages cut the values they quote themselves.)
    static func quotedWordsShown(_ message: String) -> String {
        message.replacing(/(?s)value '(.*)' is invalid for '/) { match in "value '\(shown(String(match.output.1)))' is invalid for '" }
    }

    /// swift-argument-parser's message in vault's style: its first line, starting in lower
    /// case, without a closing period.
    static func restyled(_ message: String) -> String {
        var line = quotedWordsShown(message).split(whereSeparator: \.isNewline).first.map(String.init) ?? "bad usage"
        // A surplus argument is most often a secret typed where none belongs: never quoted.
        if line.hasPrefix("Unexpected argument") || line.hasPrefix("Unexpected arguments") {
            return "too many arguments (a secret is read from standard input or a file, never from an argument)"
        }
        line = line.replacing(". Did you mean", with: "; did you mean")
        line = line.replacing(". Please provide one of", with: "; give one of")
        if line.hasSuffix("."), !line.hasSuffix("..") { line.removeLast() }
        if let first = line.first, first.isUppercase, let second = line.dropFirst().first, second.isLowercase {
            line = first.lowercased() + line.dropFirst()
        }
        return line
    }
}
