// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// One fuzz target: bytes that someone else controls, fed to vault's real parser, and the
/// invariant that must hold whatever the bytes are.
///
/// `check` returns normally when the invariant holds (a refusal of bad input is fine) and
/// throws ``InvariantViolation`` when it does not. A crash, a trap or a sanitizer report is
/// a finding too. The same targets run under libFuzzer (`Scripts/fuzz`, the `Fuzz` package)
/// and in `swift test` (`VaultFuzzingTests` replays every seed and every kept crash), so a
/// crash found once stays a regression test.
public struct FuzzTarget: Sendable {
    /// The name `Scripts/fuzz` takes and the folder of its corpus: `Tests/Fuzz/Corpus/<name>`.
    public let name: String
    /// What is fed and what is checked, one line.
    public let summary: String
    /// Feeds `bytes` to the parser and checks the invariant.
    public let check: @Sendable ([UInt8]) throws(InvariantViolation) -> Void

    public init(name: String, summary: String, check: @escaping @Sendable ([UInt8]) throws(InvariantViolation) -> Void) {
        self.name = name
        self.summary = summary
        self.check = check
    }
}

/// An invariant of a parser that some input broke: what was expected, in words.
public struct InvariantViolation: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Throws ``InvariantViolation`` with `message` unless `condition` holds.
@inline(__always)
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(InvariantViolation) {
    if !condition { throw InvariantViolation(message()) }
}
