// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// A `vault-auth-server` run in a process of its own, so that a benchmark's CPU time and
/// cores are the client's alone. Started by `init` (which returns once the server
/// listens), stopped by `stop()` (SIGTERM, then waits).
final class ExternalServer {
    let process = Process()
    let url: URL
    var pid: Int32 { process.processIdentifier }

    /// Starts `binary` with `arguments` (plus `--port 0`) and reads the URL from its first
    /// line; throws when it exits or prints something else.
    init(binary: String, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments + ["--port", "0"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") {
            line.append(first)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("listening on "), let url = URL(string: String(text.dropFirst("listening on ".count))) else {
            process.terminate()
            throw BenchError("\(binary) did not start: \(text)")
        }
        self.url = url
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

/// The server pinned to one core and this process to the others, with `taskset`, when
/// there are at least two cores and `taskset` is there; `undo()` gives this process all
/// of them back.
struct CorePinning: CustomStringConvertible {
    static let taskset = "/usr/bin/taskset"
    let serverCore: Int
    let allCores: String

    var description: String { "pinned to core \(serverCore), the client to the others (taskset)" }

    /// Pins `server` apart from this process; nil when that is not possible here.
    static func apart(server: Int32) -> CorePinning? {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard cores >= 2, FileManager.default.isExecutableFile(atPath: taskset) else { return nil }
        let pinning = CorePinning(serverCore: cores - 1, allCores: "0-\(cores - 1)")
        let ok =
            run(["-a", "-p", "-c", "\(cores - 1)", "\(server)"])
            && run(["-a", "-p", "-c", cores == 2 ? "0" : "0-\(cores - 2)", "\(getpid())"])
        return ok ? pinning : nil
    }

    func undo() { _ = Self.run(["-a", "-p", "-c", allCores, "\(getpid())"]) }

    private static func run(_ arguments: [String]) -> Bool {
        let (_, status) = Measure.runProcess(taskset, arguments, environment: [:])
        return status == 0
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
