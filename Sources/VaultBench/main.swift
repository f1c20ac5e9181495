import Foundation

/// `VaultBench [section...]`: release-mode benchmarks that print Markdown tables.
/// Sections: file (default: all). Run through `Scripts/bench`.
let arguments = Array(CommandLine.arguments.dropFirst())
let binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
let vaultBinary = ProcessInfo.processInfo.environment["VAULT_BIN"] ?? "\(binDirectory)/vault"
let work = FileManager.default.temporaryDirectory.appendingPathComponent("vault-bench-\(getpid())").path
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: work) }

let sections = arguments.isEmpty ? ["file"] : arguments
for section in sections {
    switch section {
    case "file": try FileStoreBench.run(vaultBinary: vaultBinary, workDirectory: work)
    default:
        FileHandle.standardError.write(Data("VaultBench: unknown section \(section)\n".utf8))
        exit(2)
    }
}
