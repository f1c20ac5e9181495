// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultFuzzing
import VaultTestSupport

/// Every fuzz target over every input kept for it: its seed corpus (`Tests/Fuzz/Corpus`)
/// and the crashes libFuzzer once found (`Tests/Fuzz/Crashes`, each fixed since). So the
/// fuzzers' findings stay regression tests in the ordinary `swift test`, without libFuzzer.
@Suite("fuzz targets over their kept inputs", .cpuBound)
struct CorpusReplayTests {
    static let fuzzDirectory = URL(fileURLWithPath: PackageRoot.appending("Tests/Fuzz"))

    static func inputs(_ kind: String, _ target: String) throws -> [URL] {
        let folder = fuzzDirectory.appendingPathComponent(kind).appendingPathComponent(target)
        guard FileManager.default.fileExists(atPath: folder.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test("every target's seeds and kept crashes hold its invariant", arguments: FuzzTargets.all.map(\.name))
    func replay(_ name: String) throws {
        let target = try #require(FuzzTargets.named(name))
        let seeds = try Self.inputs("Corpus", name)
        #expect(!seeds.isEmpty, "\(name) has a seed corpus in Tests/Fuzz/Corpus/\(name)")
        for input in try seeds + Self.inputs("Crashes", name) {
            let bytes = try [UInt8](Data(contentsOf: input))
            do {
                try target.check(bytes)
            } catch {
                Issue.record("\(name): \(input.lastPathComponent): \(error)")
            }
        }
    }

    @Test("docs/fuzzing.md has a row for every target")
    func documented() throws {
        let page = Self.fuzzDirectory.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/fuzzing.md")
        let rows = try String(contentsOf: page, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("| `") }
        for target in FuzzTargets.all {
            #expect(rows.contains { $0.hasPrefix("| `\(target.name)`") }, "docs/fuzzing.md has a row for \(target.name)")
        }
    }

    @Test("every corpus and crash folder names a target, and target names are unique")
    func foldersNameTargets() throws {
        let names = Set(FuzzTargets.all.map(\.name))
        #expect(names.count == FuzzTargets.all.count)
        for kind in ["Corpus", "Crashes"] {
            let folder = Self.fuzzDirectory.appendingPathComponent(kind)
            guard FileManager.default.fileExists(atPath: folder.path) else { continue }
            for entry in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !entry.hasPrefix(".") {
                #expect(names.contains(entry), "Tests/Fuzz/\(kind)/\(entry) is a known target")
            }
        }
    }
}
