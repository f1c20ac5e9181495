// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
@_spi(Benchmarks) import VaultStore

/// `VaultBench [section...]`: release-mode benchmarks that print Markdown tables.
/// Sections: file, requester, signin (default: all three), keyring (inside `Scripts/with-keyring`), etcd (inside
/// `Scripts/with-etcd`).
/// Run through `Scripts/bench`.
let arguments = Array(CommandLine.arguments.dropFirst())
let binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
let vaultBinary = ProcessInfo.processInfo.environment["VAULT_BIN"] ?? "\(binDirectory)/vault"
let work = FileManager.default.temporaryDirectory.appendingPathComponent("vault-bench-\(getpid())").path
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: work) }

let sections = arguments.isEmpty ? ["file", "requester", "signin"] : arguments
for section in sections {
    switch section {
    case "file": try FileStoreBench.run(vaultBinary: vaultBinary, workDirectory: work)
    case "kdf-once":  // one cold key derivation in a fresh process, timed by the file section
        try KDFParameters.default.deriveKeysForBenchmark(passphrase: Secret("benchmark passphrase"))
    case "requester": try await RequesterBench.run(vaultBinary: vaultBinary, workDirectory: work)
    case "signin":
        try await SignInBench.run()
        try await AppleSignInBench.run()
    case "keyring": try KeyringBench.run()
    case "etcd": try await EtcdBench.run(vaultBinary: vaultBinary, workDirectory: work)
    default:
        FileHandle.standardError.write(Data("VaultBench: unknown section \(section)\n".utf8))
        exit(2)
    }
}
