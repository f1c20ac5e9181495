// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import AuthServer
import Foundation
import Testing
import VaultTestSupport

// The examples of README.md and docs/*.md, run as a user would type them (README, "About
// the examples"):
//
// - ```sh and ```bash blocks run, in the order of their document, each in its own
//   `bash` with `set -euo pipefail`, all blocks of a document in one sandbox (a fresh HOME
//   that is also the working directory, PATH = the built executables + /usr/bin:/bin) and
//   an environment prepared for that document below. A block passes when it exits 0.
// - ```console blocks are transcripts: each `$ ` line (with its `\` continuation lines) is
//   run the same way and must exit 0 and print (stdout and stderr together) exactly the
//   lines that follow it, where `…` stands for any text within a line.
// - `https://auth.example.com`, `https://api.example.com` and `https://accounts.example.com`
//   in a block that runs are replaced by the reference auth server's `http://127.0.0.1:PORT`.
// - A block right after a line `<!-- illustrative: WHY -->` is not run, only checked: its
//   shell with `bash -n` (a console block: its `$ ` commands).
// - Whatever their marker, ```cron blocks are checked as crontab(5) lines (one line per
//   entry, five time fields or an @keyword, no unescaped `%`, `sh -n`), and ```ini blocks
//   as systemd units (`Key=Value` lines; each `Exec…=` command line `bash -n`).
// - A ```swift block that is not marked illustrative must stand, line for line and in one
//   piece (indentation aside), in Tests/VaultAuthTests/ReadmeLibraryExamples.swift, which
//   compiles with the tests; its `import` lines must be that file's imports.
// - A block in any other language than those, swift, yaml and text (or none) fails: a
//   shell example cannot escape the test by its tag.
//
// The blocks run in a user namespace of their own (`unshare --user --map-current-user`),
// whose kernel user keyring is private: `vault unlock`, `vault lock --all` and `vault lock
// --backend etcd` in an example never touch the key cache of whoever runs the tests.

/// One fenced block of a Markdown document.
struct MarkdownBlock: Sendable, CustomStringConvertible {
    /// The document's path in the repository (`README.md`, `docs/unattended.md`).
    let document: String
    /// The line of the opening fence (1-based).
    let line: Int
    /// The info string's first word (`sh`, `console`, …), "" when there is none.
    let language: String
    /// The lines between the fences (less the fence's indentation), each ending in "\n".
    let text: String
    /// Right after `<!-- illustrative: WHY -->`: checked, not run.
    let illustrative: Bool
    /// The marker's reason ("" when none is given, which the tests refuse).
    let reason: String

    var description: String { "\(document):\(line)" }
    var isShell: Bool { ["sh", "bash"].contains(language) }
    var runs: Bool { !illustrative && (isShell || language == "console") }
}

/// Reads the fenced blocks of the repository's documentation.
enum MarkdownExamples {
    /// The repository's root directory.
    static let root: String = PackageRoot.path

    /// README.md and every docs/*.md.
    static let documents: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root + "/docs")) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }()

    /// The languages a block may be tagged with (anything else fails the test).
    static let knownLanguages: Set<String> = ["sh", "bash", "console", "cron", "ini", "yaml", "swift", "text", ""]

    static let illustrativePrefix = "<!-- illustrative"

    /// The fenced blocks of `document`, in order.
    static func blocks(of document: String) throws -> [MarkdownBlock] {
        let text = try String(contentsOfFile: root + "/" + document, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var blocks: [MarkdownBlock] = []
        var previous = ""  // the last non-blank line before this one, outside blocks
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let content = line.drop { $0 == " " }
            guard content.hasPrefix("```") else {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if !trimmed.isEmpty { previous = trimmed }
                index += 1
                continue
            }
            let indent = line.count - content.count
            let info = content.dropFirst(3).trimmingCharacters(in: .whitespaces)
            var body = ""
            var end = index + 1
            while end < lines.count, lines[end].trimmingCharacters(in: .whitespaces) != "```" {
                let inner = lines[end]
                body += String(inner.dropFirst(min(indent, inner.prefix { $0 == " " }.count))) + "\n"
                end += 1
            }
            let illustrative = previous.hasPrefix(illustrativePrefix)
            var reason = ""
            if illustrative {
                reason = String(previous.dropFirst(illustrativePrefix.count)).replacingOccurrences(of: "-->", with: "")
                    .trimmingCharacters(in: CharacterSet(charactersIn: ": ").union(.whitespaces))
            }
            blocks.append(
                MarkdownBlock(
                    document: document, line: index + 1, language: info.split(separator: " ").first.map(String.init) ?? "",
                    text: body, illustrative: illustrative, reason: reason))
            previous = ""
            index = end + 1
        }
        return blocks
    }

    /// A console block's commands (`$ ` lines joined with their `\` continuations), each
    /// with the output lines that follow it.
    static func transcript(_ block: MarkdownBlock) -> [(command: String, output: [String])] {
        var steps: [(command: String, output: [String])] = []
        var continuing = false
        for line in block.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) {
            if continuing, !steps.isEmpty {
                steps[steps.count - 1].command += "\n" + line
                continuing = line.hasSuffix("\\")
            } else if line.hasPrefix("$ ") {
                steps.append((String(line.dropFirst(2)), []))
                continuing = line.hasSuffix("\\")
            } else if !steps.isEmpty {
                steps[steps.count - 1].output.append(line)
            }
        }
        return steps
    }

    /// Whether `actual` is `expected`, where `…` in an expected line stands for any text.
    static func matches(_ actual: [String], _ expected: [String]) -> Bool {
        guard actual.count == expected.count else { return false }
        return zip(actual, expected).allSatisfy { actual, expected in
            let pattern = "^" + expected.components(separatedBy: "…").map(NSRegularExpression.escapedPattern(for:)).joined(separator: ".*") + "$"
            return actual.range(of: pattern, options: .regularExpression) != nil
        }
    }
}

/// Where one document's examples run: a fresh HOME (also the working directory) and an
/// environment, in a private user namespace when the system allows one.
struct DocsSandbox: Sendable {
    let home: String
    let environment: [String: String]
    /// The reference server's URL that stands for the example servers.
    let serverURL: String?

    static let binDirectory = URL(fileURLWithPath: VaultProcess.vaultPath).deletingLastPathComponent().path
    static let servers = ["https://auth.example.com", "https://api.example.com", "https://accounts.example.com"]

    /// `unshare --user --map-current-user` works here (a private kernel keyring per run).
    static let userNamespace: Bool = {
        (try? ChildProcess.run("/usr/bin/unshare", ["--user", "--map-current-user", "/bin/true"], environment: [:], timeout: 10))?
            .status == 0
    }()

    /// The environment every document starts from; `extra` adds to it.
    init(home: String, serverURL: String? = nil, keyring: Bool = false, extra: [String: String] = [:]) {
        self.home = home
        self.serverURL = serverURL
        var environment: [String: String] = [
            "HOME": home, "PATH": "\(Self.binDirectory):/usr/bin:/bin", "LANG": "C.UTF-8", "VAULT_TEST_KDF_LOG2N": "10",
            "TMPDIR": home + "/.tmp",
        ]
        if keyring {
            for name in ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"] {
                if let value = ProcessInfo.processInfo.environment[name] { environment[name] = value }
            }
        }
        self.environment = environment.merging(extra) { $1 }
        try? FileManager.default.createDirectory(atPath: home + "/.tmp", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Writes `contents` to `name` in HOME, mode 0600 (or `mode`).
    func write(_ name: String, _ contents: String, mode: Int = 0o600) {
        let path = home + "/" + name
        try? FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        _ = FileManager.default.createFile(atPath: path, contents: Data(contents.utf8), attributes: [.posixPermissions: mode])
    }

    /// `script` in bash with `set -euo pipefail`, in HOME; `name` is its `$0` (in bash's messages).
    func bash(_ script: String, name: String, mergeOutput: Bool = false, timeout: Double = 60) async throws -> ProcessResult {
        var text = script
        if let serverURL { text = Self.servers.reduce(text) { $0.replacingOccurrences(of: $1, with: serverURL) } }
        // The output goes to files, not to the child's pipes: a background process that an
        // example leaves behind (`server &`) would hold a pipe open, and the wait for its end
        // with it. Such processes are killed when the block ends.
        let outputs = try TemporaryDirectory.make(prefix: "vault-docs-output")
        defer { TemporaryDirectory.remove(outputs) }
        let redirect = mergeOutput ? "exec >'\(outputs)/out' 2>&1" : "exec >'\(outputs)/out' 2>'\(outputs)/err'"
        let prelude = "cd \"$HOME\" && set -euo pipefail\ntrap 'kill -KILL $(jobs -p) 2>/dev/null || true' EXIT\n\(redirect)\n"
        let shell = ["/bin/bash", "--noprofile", "--norc", "-c", prelude + text, name]
        let (executable, arguments) =
            Self.userNamespace ? ("/usr/bin/unshare", ["--user", "--map-current-user"] + shell) : (shell[0], Array(shell.dropFirst()))
        let child = try ChildProcess(executable, arguments, environment: environment, stdin: Data())
        var result = try await child.finishAsync(timeout: timeout)
        result.stdout = (try? Data(contentsOf: URL(fileURLWithPath: outputs + "/out"))) ?? Data()
        result.stderr = ((try? Data(contentsOf: URL(fileURLWithPath: outputs + "/err"))) ?? Data()) + result.stderr
        for marker in ChildProcess.crashReportMarkers where result.err.contains(marker) || result.out.contains(marker) {
            Issue.record("\(name): a crash report (\"\(marker)\"):\n\(result.out)\(result.err)")
        }
        return result
    }

    /// Runs every block of `document` that runs, in order, and checks the others.
    func runDocument(_ document: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let blocks = try MarkdownExamples.blocks(of: document)
        for block in blocks { try await DocsChecks.check(block, sourceLocation: sourceLocation) }
        for block in blocks where block.runs { try await run(block, sourceLocation: sourceLocation) }
    }

    /// Runs one block (``failures(_:)``) and records each failure as an issue of the test.
    func run(_ block: MarkdownBlock, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for failure in try await failures(block) { Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation) }
    }

    /// Runs one block, a shell block as a whole, a console block command by command, and
    /// says what failed: a non-zero exit, output other than the transcript shows.
    func failures(_ block: MarkdownBlock) async throws -> [String] {
        var failures = Findings()
        if block.isShell {
            let result = try await bash(block.text, name: block.description)
            failures.expect(
                result.status == 0, "\(block) exited \(result.status):\n\(block.text)--- stdout:\n\(result.out)--- stderr:\n\(result.err)")
            return failures.list
        }
        for (command, expected) in MarkdownExamples.transcript(block) {
            let result = try await bash(command, name: block.description, mergeOutput: true)
            let actual = result.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let lines = actual.last == "" ? Array(actual.dropLast()) : actual
            failures.expect(result.status == 0, "\(block): `\(command)` exited \(result.status):\n\(result.out)")
            failures.expect(
                MarkdownExamples.matches(lines, expected),
                "\(block): `\(command)` printed\n\(lines.joined(separator: "\n"))\n--- where the document shows\n\(expected.joined(separator: "\n"))")
        }
        return failures.list
    }
}

/// What a check found wrong, as values: the checkers' own tests assert on them (no known
/// issues), and the docs tests record each one.
struct Findings {
    private(set) var list: [String] = []
    mutating func expect(_ condition: Bool, _ message: @autoclosure () -> String) { if !condition { list.append(message()) } }
    mutating func add(_ message: String) { list.append(message) }
    mutating func add(_ messages: [String]) { list += messages }
}

/// The checks of blocks that do not run: shell syntax, crontab lines, systemd units.
enum DocsChecks {
    /// Checks `block` (``problems(_:)``) and records each problem as an issue of the test.
    static func check(_ block: MarkdownBlock, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for problem in try await problems(block) { Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation) }
    }

    /// What is wrong with `block`: an unknown language, an illustrative block without its
    /// reason, text its shell does not parse, a broken crontab entry or unit line.
    static func problems(_ block: MarkdownBlock) async throws -> [String] {
        var problems = Findings()
        problems.expect(
            MarkdownExamples.knownLanguages.contains(block.language),
            "\(block): a block in `\(block.language)`: tag shell as sh, bash or console (see README, About the examples)")
        if block.illustrative {
            problems.expect(!block.reason.isEmpty, "\(block): say why it is illustrative: <!-- illustrative: WHY -->")
        }
        switch block.language {
        case "sh", "bash": problems.add(try await syntax(block.text, of: block))
        case "console":
            let commands = MarkdownExamples.transcript(block).map(\.command)
            problems.expect(!commands.isEmpty, "\(block): a console block without a `$ ` command")
            problems.add(try await syntax(commands.joined(separator: "\n"), of: block))
        case "cron": problems.add(try await cron(block))
        case "ini": problems.add(try await systemdUnit(block))
        default: break
        }
        return problems.list
    }

    /// `bash -n` (or `sh -n`): the text parses.
    static func syntax(_ text: String, of block: MarkdownBlock, shell: String = "/bin/bash") async throws -> [String] {
        let result = try await ChildProcess.runAsync(shell, ["-n", "-c", text, block.description], environment: [:], timeout: 30)
        return result.status == 0 ? [] : ["\(block): \(shell) -n: \(result.err)\n\(text)"]
    }

    /// Every entry of a crontab is one line: five time fields (or an @keyword) and a command
    /// that `sh` parses, with no unescaped `%` (cron turns it into a newline).
    static func cron(_ block: MarkdownBlock) async throws -> [String] {
        var problems = Findings()
        for line in block.text.split(separator: "\n").map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if trimmed.range(of: #"^[A-Za-z_][A-Za-z0-9_]*\s*="#, options: .regularExpression) != nil { continue }  // NAME=value
            problems.expect(!trimmed.hasSuffix("\\"), "\(block): crontab(5) has no continuation lines: \(line)")
            let fields = trimmed.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            let timeFields = fields.first?.hasPrefix("@") == true ? 1 : 5
            let times = fields.prefix(timeFields)
            let timesValid =
                times.count == timeFields && times.allSatisfy { $0.range(of: #"^(@[a-z]+|[0-9A-Za-z*/,\-]+)$"#, options: .regularExpression) != nil }
            problems.expect(timesValid && fields.count > timeFields, "\(block): not a crontab entry: \(line)")
            let command = fields.dropFirst(timeFields).joined(separator: " ")
            problems.expect(
                command.range(of: #"(^|[^\\])%"#, options: .regularExpression) == nil,
                "\(block): an unescaped % in a crontab command is a newline: \(line)")
            problems.add(try await syntax(command, of: block, shell: "/bin/sh"))
        }
        return problems.list
    }

    /// A systemd unit: sections and `Key=Value` lines (a trailing `\` joins the next line);
    /// each `Exec…=` command line parses as shell words and names its program by an
    /// absolute path or a bare name.
    static func systemdUnit(_ block: MarkdownBlock) async throws -> [String] {
        var problems = Findings()
        var logical: [String] = []
        var joining = false
        for line in block.text.split(separator: "\n").map(String.init) {
            if joining, !logical.isEmpty { logical[logical.count - 1] += " " + line } else { logical.append(line) }
            joining = line.hasSuffix("\\")
            if joining { logical[logical.count - 1].removeLast() }
        }
        for line in logical {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            if trimmed.hasPrefix("[") {
                problems.expect(trimmed.hasSuffix("]"), "\(block): a section header: \(line)")
                continue
            }
            guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals].range(of: #"^[A-Za-z]+$"#, options: .regularExpression) != nil
            else {
                problems.add("\(block): not a Key=Value line of a systemd unit: \(line)")
                continue
            }
            guard trimmed.hasPrefix("Exec") else { continue }
            let command = String(trimmed[trimmed.index(after: equals)...].drop { "-@:+!".contains($0) })
            let program = command.split(separator: " ").first.map(String.init) ?? ""
            problems.expect(
                program.hasPrefix("/") || !program.contains("/"), "\(block): systemd needs an absolute path or a bare name: \(line)")
            problems.add(try await syntax(command, of: block))
        }
        return problems.list
    }
}

/// The relative links of the documentation: every file and heading they name exists.
enum DocsLinks {
    /// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as `-`.
    static func anchor(_ heading: String) -> String {
        String(
            heading.lowercased().compactMap { character -> Character? in
                if character == " " { return "-" }
                return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
            })
    }

    /// The anchors of the headings of the document at `path`.
    static func anchors(of path: String) throws -> Set<String> {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var fenced = false
        var anchors: Set<String> = []
        for line in text.split(separator: "\n").map(String.init) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { fenced.toggle() }
            if !fenced, line.hasPrefix("#") { anchors.insert(anchor(String(line.drop { $0 == "#" }.dropFirst()))) }
        }
        return anchors
    }

    /// `(target, line)` of every relative Markdown link outside code blocks.
    static func links(of document: String) throws -> [(target: String, line: Int)] {
        let text = try String(contentsOfFile: MarkdownExamples.root + "/" + document, encoding: .utf8)
        var fenced = false
        var links: [(target: String, line: Int)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).enumerated() {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { fenced.toggle() }
            guard !fenced else { continue }
            let expression = try NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
            for match in expression.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                guard let range = Range(match.range(at: 1), in: line) else { continue }
                let target = String(line[range])
                if target.contains("://") || target.hasPrefix("mailto:") { continue }
                links.append((target, index + 1))
            }
        }
        return links
    }
}

/// The documents' examples that need no etcd: README.md with the file backend and the
/// reference server, docs/unattended.md as a service would run, docs/secret-service.md on
/// the private keyring of `Scripts/with-keyring`, and every block's tag and syntax.
@Suite(.offThePool) struct DocsExamplesTests {
    static let password = "alice-docs-password-81f3"
    static let clientSecret = "my-app-client-secret-5d2e"

    /// The reference server as the documents know it: alice, the confidential OAuth clients
    /// `my-app` and `report`, and the public client `my-cli`.
    func withDocsServer(_ body: (RunningReferenceServer) async throws -> Void) async throws {
        var configuration = AuthServerConfiguration(
            accessTokenLifetime: 60, refreshTokenLifetime: 300, users: [CredentialPair(name: "alice", secret: Self.password)],
            clients: [CredentialPair(name: "my-app", secret: Self.clientSecret), CredentialPair(name: "report", secret: Self.clientSecret)])
        configuration.publicClients = ["my-cli"]
        try await withReferenceServer(configuration, body)
    }

    @Test func everyBlockIsTaggedAndParses() async throws {
        for document in MarkdownExamples.documents {
            let blocks = try MarkdownExamples.blocks(of: document)
            #expect(!blocks.isEmpty || document.hasPrefix("docs/"), "\(document): no block found")
            for block in blocks { try await DocsChecks.check(block) }
            print("\(document): \(blocks.filter(\.runs).count) blocks run, \(blocks.filter(\.illustrative).count) illustrative")
        }
        #expect(MarkdownExamples.documents.count >= 5, "README.md and docs/*.md: \(MarkdownExamples.documents)")
    }

    /// The library examples are compiled code: each ```swift block that is not marked
    /// illustrative is a contiguous run of ReadmeLibraryExamples.swift's lines.
    @Test func swiftBlocksAreCompiled() throws {
        let compiledPath = MarkdownExamples.root + "/Tests/VaultAuthTests/ReadmeLibraryExamples.swift"
        let compiled = try String(contentsOfFile: compiledPath, encoding: .utf8)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var checked = 0
        for document in MarkdownExamples.documents {
            for block in try MarkdownExamples.blocks(of: document) where block.language == "swift" && !block.illustrative {
                let lines = block.text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                let imports = lines.filter { $0.hasPrefix("import ") }
                let code = lines.filter { !$0.hasPrefix("import ") }
                for line in imports { #expect(compiled.contains(line), "\(block): `\(line)` is not an import of ReadmeLibraryExamples.swift") }
                let found =
                    !code.isEmpty
                    && compiled.indices.contains { start in
                        start + code.count <= compiled.count && Array(compiled[start..<start + code.count]) == code
                    }
                #expect(found, "\(block): this swift block is not in ReadmeLibraryExamples.swift as one piece; copy it there or mark it illustrative")
                checked += 1
            }
        }
        #expect(checked >= 2, "the README's library examples were not found: \(checked) blocks")
    }

    @Test func everyRelativeLinkAndAnchorExists() throws {
        for document in MarkdownExamples.documents {
            let directory = (document as NSString).deletingLastPathComponent
            for (target, line) in try DocsLinks.links(of: document) {
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let relative = parts[0].isEmpty ? document : (directory.isEmpty ? parts[0] : directory + "/" + parts[0])
                let file = ((MarkdownExamples.root + "/" + relative) as NSString).standardizingPath
                #expect(
                    file.hasPrefix(MarkdownExamples.root + "/") && FileManager.default.fileExists(atPath: file),
                    "\(document):\(line): no file \(target) in the repository")
                if parts.count == 2, file.hasSuffix(".md"), FileManager.default.fileExists(atPath: file) {
                    #expect(try DocsLinks.anchors(of: file).contains(parts[1]), "\(document):\(line): no heading #\(parts[1]) in \(target)")
                }
            }
            let text = try String(contentsOfFile: MarkdownExamples.root + "/" + document, encoding: .utf8)
            #expect(!text.contains("DESIGN.md"), "\(document): DESIGN.md is not part of the repository")
        }
    }

    /// The helpers' own rules: a transcript's `…`, a crontab split over lines, a unit line.
    @Test func theCheckersCatchWhatTheyShould() async throws {
        #expect(MarkdownExamples.matches(["file\tauto: x (probe 0.3 ms)"], ["file\tauto: x (probe … ms)"]))
        #expect(!MarkdownExamples.matches(["file\tauto"], ["secret-service\tauto"]))
        #expect(!MarkdownExamples.matches(["a", "b"], ["a"]))
        let block = MarkdownBlock(
            document: "test.md", line: 1, language: "console", text: "$ printf 'a\\n' \\\n    b\na b\n$ true\n", illustrative: false, reason: "")
        let steps = MarkdownExamples.transcript(block)
        #expect(steps.count == 2 && steps[0].command == "printf 'a\\n' \\\n    b" && steps[0].output == ["a b"] && steps[1].output.isEmpty)
        // A crontab entry split over lines, an unescaped %, a broken unit line, an unknown
        // language: each is found, and said.
        let split = try await DocsChecks.problems(
            MarkdownBlock(document: "test.md", line: 1, language: "cron", text: "*/15 * * * *  true \\\n    | cat\n", illustrative: false, reason: "")
        )
        #expect(split.contains { $0.contains("crontab(5) has no continuation lines") }, "\(split)")
        let percent = try await DocsChecks.problems(
            MarkdownBlock(document: "test.md", line: 1, language: "cron", text: "@daily printf %s x\n", illustrative: false, reason: ""))
        #expect(percent.contains { $0.contains("an unescaped % in a crontab command") }, "\(percent)")
        let unit = try await DocsChecks.problems(
            MarkdownBlock(document: "test.md", line: 1, language: "ini", text: "[Service]\nExecStart=sh -c 'x\n", illustrative: false, reason: ""))
        #expect(unit.contains { $0.contains("/bin/bash -n") }, "\(unit)")
        let shell = try await DocsChecks.problems(
            MarkdownBlock(document: "test.md", line: 1, language: "shell", text: "true\n", illustrative: false, reason: ""))
        #expect(shell.contains { $0.contains("a block in `shell`") }, "\(shell)")
        let good = try await DocsChecks.problems(
            MarkdownBlock(
                document: "test.md", line: 1, language: "cron", text: "*/15 * * * * vault token >/dev/null\n", illustrative: false, reason: ""))
        #expect(good.isEmpty, "\(good)")
    }

    /// A block that fails fails the test: the harness runs what it extracts.
    @Test func aFailingExampleFailsTheTest() async throws {
        try await withTemporaryDirectory("vault-docs") { home in
            let sandbox = DocsSandbox(home: home)
            let missing = try await sandbox.failures(
                MarkdownBlock(
                    document: "test.md", line: 1, language: "sh", text: "vault load --backend file --server s --account a\n",
                    illustrative: false, reason: ""))
            #expect(missing.count == 1 && missing[0].contains("exited 1"), "vault load of a missing item exits 1: \(missing)")
            // A server left running in the background neither hangs the test nor outlives the block.
            let started = Date()
            let background = try await sandbox.bash("sleep 300 &\necho started", name: "background")
            #expect(background.status == 0 && background.out == "started\n", "\(background.status): \(background.out)\(background.err)")
            #expect(Date().timeIntervalSince(started) < 30)
            let other = try await sandbox.failures(
                MarkdownBlock(document: "test.md", line: 1, language: "console", text: "$ echo one\ntwo\n", illustrative: false, reason: ""))
            #expect(
                other.count == 1 && other[0].contains("printed\none\n--- where the document shows\ntwo"),
                "output other than the transcript shows: \(other)")
        }
    }

    @Test func readme() async throws {
        try await withDocsServer { server in
            try await withTemporaryDirectory("vault-docs") { home in
                let sandbox = DocsSandbox(
                    home: home, serverURL: server.url,
                    extra: [
                        "VAULT_BACKEND": "file", "VAULT_PASSPHRASE": "docs passphrase 2b7c", "PW": Self.password, "TOKEN": "ci-token-60d1",
                        "DB_PASSWORD": "db-password-93aa",
                    ])
                sandbox.write("my-app.secret", Self.clientSecret + "\n")
                try await sandbox.runDocument("README.md")
            }
        }
    }

    @Test func unattendedUse() async throws {
        try await withDocsServer { server in
            try await withTemporaryDirectory("vault-docs") { home in
                // As systemd runs a service: the passphrase in $CREDENTIALS_DIRECTORY.
                let sandbox = DocsSandbox(
                    home: home, serverURL: server.url,
                    extra: ["VAULT_BACKEND": "file", "CREDENTIALS_DIRECTORY": home + "/credentials", "PW": Self.password])
                sandbox.write("credentials/vault-passphrase", "service passphrase 4e0a\n")
                sandbox.write("report-client.secret", Self.clientSecret + "\n")
                try await sandbox.runDocument("docs/unattended.md")
            }
        }
    }

    @Test func agent() async throws {
        try await withDocsServer { server in
            try await withTemporaryDirectory("vault-docs") { home in
                // The agent's socket in a runtime directory of the test's own, not the machine's.
                let sandbox = DocsSandbox(
                    home: home, serverURL: server.url, extra: ["VAULT_BACKEND": "file", "XDG_RUNTIME_DIR": home + "/run", "PW": Self.password])
                sandbox.write("passphrase", "agent passphrase 7d1e\n")
                try FileManager.default.createDirectory(
                    atPath: home + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                try await sandbox.runDocument("docs/agent.md")
            }
        }
    }

    @Test(.needsKeyring)
    func secretService() async throws {
        try KeyringTestEnvironment.require()
        try await withTemporaryDirectory("vault-docs") { home in
            let sandbox = DocsSandbox(home: home, keyring: true, extra: ["PW": "backup-password-27d9"])
            var failure: (any Error)?
            do { try await sandbox.runDocument("docs/secret-service.md") } catch { failure = error }
            // The keyring is the test run's, shared with other suites: leave none of the examples' items in it.
            _ = try await sandbox.bash(
                """
                vault remove --server db.internal --account backup
                vault remove --server https://git.example.com:8443/repo.git --account bob
                vault remove --server smtp.internal --account relay
                """, name: "cleanup")
            if let failure { throw failure }
        }
    }

    /// docs/headless-secret-service.md: `vault agent --secret-service` on a private bus of
    /// the document's own (`dbus-run-session`), the file backend, a passphrase file.
    @Test func headlessSecretService() async throws {
        try await withTemporaryDirectory("vault-docs") { home in
            let sandbox = DocsSandbox(home: home, extra: ["XDG_RUNTIME_DIR": home + "/run"])
            sandbox.write("passphrase", "headless docs passphrase 4c2a\n")
            try FileManager.default.createDirectory(atPath: home + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try await sandbox.runDocument("docs/headless-secret-service.md")
        }
    }

    @Test func fileFormat() async throws {
        try await withTemporaryDirectory("vault-docs") { home in
            try await DocsSandbox(home: home).runDocument("docs/file-format.md")
        }
    }
}

/// docs/fleet.md next to a private three-member etcd cluster on loopback (the name holds
/// `EtcdCLITests`: Scripts/test runs it in its etcd pass, inside Scripts/with-etcd).
@Suite(.needsEtcd, .offThePool)
struct DocsExamplesEtcdCLITests {
    @Test func fleet() async throws {
        try await withEtcdCluster { cluster in
            try await withTemporaryDirectory("vault-docs") { home in
                let sandbox = DocsSandbox(
                    home: home,
                    extra: [
                        "VAULT_ETCD_ENDPOINTS": cluster.endpoints, "VAULT_PASSPHRASE": "fleet passphrase 0c5b",
                        "TOKEN": "fleet-token-7e21",
                    ])
                try await sandbox.runDocument("docs/fleet.md")
            }
        }
    }
}
