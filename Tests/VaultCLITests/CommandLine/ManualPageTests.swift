// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultTestSupport

/// The man pages as Scripts/build-release makes them (Scripts/man-pages over this build's
/// executables), issue 38 §5.6: `man` shows them without a warning, `mandoc -T lint` passes
/// them, options are never hyphenated, and vault.1 has the sections a manual has, with the
/// README's environment variables and exit codes.
@Suite(.offThePool) struct ManualPageTests {
    static let root = PackageRoot.path
    static let bin = URL(fileURLWithPath: VaultProcess.vaultPath).deletingLastPathComponent().path
    /// Built by Scripts/test and .ci/run (`swift build --product generate-manual`); in a
    /// sanitized run, in the plain build's folder.
    static let generator = ["\(bin)/generate-manual", "\(root)/.build/debug/generate-manual"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Runs Scripts/man-pages into a new directory and gives `body` its path.
    func withPages(_ body: (String) async throws -> Void) async throws {
        let generator = try #require(Self.generator, "no generate-manual: Scripts/test builds it (swift build --product generate-manual)")
        try await withTemporaryDirectory("vault-man") { directory in
            let made = try await ChildProcess.runAsync(
                "\(Self.root)/Scripts/man-pages", [generator, Self.bin, "2026-11-30", directory], timeout: 120)
            #expect(made.status == 0 && made.err.isEmpty, "\(made.err)")
            try await body(directory)
        }
    }

    /// What `man` shows of `page` at `width` columns (stderr apart).
    func rendered(_ page: String, width: Int) async throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment["MANPAGER"] = "cat"
        environment["MANWIDTH"] = "\(width)"
        environment["LANG"] = "C.UTF-8"
        return try await ChildProcess.runAsync("/usr/bin/man", ["-l", page], environment: environment, timeout: 60)
    }

    @Test("man shows both pages without a warning; mandoc -T lint finds nothing at warning level")
    func noWarnings() async throws {
        try await withPages { directory in
            for name in ["vault.1", "git-credential-vault.1"] {
                let page = "\(directory)/\(name)"
                let lint = try await ChildProcess.runAsync("/usr/bin/mandoc", ["-T", "lint", "-W", "warning", page], timeout: 60)
                #expect(lint.status == 0 && lint.out.isEmpty && lint.err.isEmpty, "\(name): \(lint.out)\(lint.err)")
                for width in [60, 80] {
                    let shown = try await rendered(page, width: width)
                    // At 60 columns a long path or URL, kept whole, cannot break: troff says so.
                    let warnings = shown.err.split(separator: "\n").filter { width == 80 || !$0.hasSuffix("can't break line") }
                    #expect(shown.status == 0 && warnings.isEmpty, "man \(name) at \(width) columns: \(shown.err)")
                    // Neither hyphenated words (U+2010) nor an option cut at a line's end.
                    for line in shown.out.split(separator: "\n") {
                        #expect(!line.hasSuffix("\u{2010}"), "\(name) at \(width): hyphenated: \(line)")
                        #expect(line.firstMatch(of: /(^|\s)--?[a-z][a-z-]*-$/) == nil, "\(name) at \(width): an option cut: \(line)")
                    }
                }
            }
        }
    }

    @Test("vault.1: ENVIRONMENT, FILES, EXIT STATUS, EXAMPLES and SEE ALSO, the shared options, the README's lists")
    func sections() async throws {
        try await withPages { directory in
            let shown = try await rendered("\(directory)/vault.1", width: 80).out
            let headings = shown.split(separator: "\n").filter { $0.first?.isUppercase == true }.map(String.init)
            for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES", "SEE ALSO"] {
                #expect(headings.contains(section), "no \(section) in \(headings)")
            }
            let readme = try String(contentsOfFile: "\(Self.root)/README.md", encoding: .utf8)
            let variables = Set(readme.matches(of: /\| `([A-Z_]+)[`=]/).map { String($0.output.1) })
            #expect(variables.count > 20, "\(variables)")
            let environment = try #require(shown.firstRange(of: "\nENVIRONMENT\n").map { String(shown[$0.upperBound...]) })
            for variable in variables { #expect(environment.contains(variable), "ENVIRONMENT lacks \(variable)") }
            let exitStatus = try #require(shown.firstRange(of: "\nEXIT STATUS\n").map { String(shown[$0.upperBound...]) })
            for code in ["0", "1", "2", "3", "4", "5", "126", "127", "130", "143"] {
                #expect(("\n" + exitStatus).contains("\n     \(code) "), "EXIT STATUS lacks \(code)")
            }
            for option in ["--backend", "--passphrase-file", "--no-key-cache", "--prompt-timeout", "--etcd-endpoints", "--etcd-password-file"] {
                #expect(shown.contains("     \(option)"), "the shared option \(option) is not listed")
            }
            #expect(shown.contains("vault load https://api.example.com ci"), "EXAMPLES")
            #expect(shown.contains("git-credential-vault(1)"), "SEE ALSO")
            let helper = try await rendered("\(directory)/git-credential-vault.1", width: 80).out
            #expect(helper.contains("EXIT STATUS") && helper.contains("vault(1)"), "\(helper)")
        }
    }
}
