// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing
import VaultEtcdFormat
import VaultFuzzing
import VaultStore
import VaultTestSupport

/// The seeds of the store-side targets that the targets themselves write (vault files and
/// bodies, fleet records and values: fixed keys and nonces, so the same bytes every time) are
/// in the corpus as written, so the fuzzers start from inputs that open. Run with
/// `VAULT_FUZZ_WRITE_SEEDS=1` to write them after a change of the format.
@Suite("store fuzz targets' seeds", .cpuBound)
struct StoreSeedCorpusTests {
    static let corpus = CorpusReplayTests.fuzzDirectory.appendingPathComponent("Corpus")

    /// Every seed the targets write, as (target, file name, bytes).
    static func writtenSeeds() throws -> [(target: String, name: String, bytes: [UInt8])] {
        let files = try #require(VaultFileSamples.shared)
        let fleet = try #require(FleetSamples.shared)
        var seeds: [(String, String, [UInt8])] = []
        for sample in files.samples {
            seeds.append(("vault-file", sample.name + ".vault", sample.file))
            seeds.append(("vault-contents", sample.name + ".body", sample.body))
        }
        // Bodies the readers must refuse: a count past the end, an unknown kind.
        var items = ItemCodec.encode(VaultFileSamples.credentials)
        seeds.append(("vault-contents", "huge-count.body", Array(items.prefix(4)) + [0xFF, 0xFF, 0xFF, 0xFF] + Array(items.dropFirst(4))))
        items[4] = 3
        seeds.append(("vault-contents", "unknown-kind.body", items))
        for (index, (_, record)) in fleet.records.enumerated() { seeds.append(("fleet-parameters", "record-\(index)", record)) }
        for value in fleet.values { seeds.append(("fleet-envelope", value.name, value.value)) }
        return seeds
    }

    @Test("the corpus holds every seed the targets write, byte for byte")
    func corpusHoldsWrittenSeeds() throws {
        let write = ProcessInfo.processInfo.environment["VAULT_FUZZ_WRITE_SEEDS"] == "1"
        for seed in try Self.writtenSeeds() {
            let url = Self.corpus.appendingPathComponent(seed.target).appendingPathComponent(seed.name)
            if write {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(seed.bytes).write(to: url)
            }
            let kept = try? [UInt8](Data(contentsOf: url))
            #expect(kept == seed.bytes, "Tests/Fuzz/Corpus/\(seed.target)/\(seed.name) is as the target writes it")
        }
    }

    @Test("every file the vault-file target wrote opens, and refuses a change of any byte")
    func everyBitFlipIsRefused() throws {
        let files = try #require(VaultFileSamples.shared)
        let target = try #require(FuzzTargets.named("vault-file"))
        #expect(files.samples.count == 5)
        for sample in files.samples {
            #expect(throws: Never.self) { try VaultFileFormat.open(sample.file, keys: files.keys) }
            // Every byte, each in one of its bits (the bits in turn).
            for offset in sample.file.indices {
                var changed = sample.file
                changed[offset] ^= 1 << (offset % 8)
                #expect(throws: VaultError.self) { try VaultFileFormat.open(changed, keys: files.keys) }
                try target.check(changed)
            }
        }
    }

    @Test("a fleet value opens only under the item key it was sealed for")
    func fleetValuesAreBoundToTheirKey() throws {
        let fleet = try #require(FleetSamples.shared)
        for value in fleet.values {
            for itemKey in FleetSamples.itemKeys {
                if itemKey == value.itemKey {
                    #expect(try FleetFormat.open(value.value, keys: fleet.keys, itemKey: itemKey) == value.credential)
                } else {
                    #expect(throws: VaultError.self) { try FleetFormat.open(value.value, keys: fleet.keys, itemKey: itemKey) }
                }
            }
        }
    }
}
