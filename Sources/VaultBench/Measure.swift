// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

/// Timing helpers for the benchmarks: monotonic clock, medians, table output.
enum Measure {
    /// Runs `body` `count` times and returns each run's duration in milliseconds.
    static func times(_ count: Int, _ body: () throws -> Void) rethrows -> [Double] {
        var result: [Double] = []
        result.reserveCapacity(count)
        for _ in 0..<count {
            let start = ContinuousClock.now
            try body()
            result.append(milliseconds(ContinuousClock.now - start))
        }
        return result
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
    }

    /// Runs a program to completion with `environment`, stdio on /dev/null, through
    /// `posix_spawn` (Foundation's `Process` adds tens of milliseconds of its own), stdin
    /// read from `stdin`;
    /// returns the wall time in milliseconds and the exit status.
    static func runProcess(
        _ path: String, _ arguments: [String], environment: [String: String], stdin: String = "/dev/null"
    ) -> (Double, Int32) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in 0...2 { posix_spawn_file_actions_addopen(&actions, Int32(fd), fd == 0 ? stdin : "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        guard posix_spawn(&pid, path, &actions, nil, argv, envp) == 0 else { return (.nan, -1) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let elapsed = milliseconds(ContinuousClock.now - start)
        return (elapsed, (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1)
    }
}

/// A plain-text table printed as Markdown, so it can go straight into a note.
struct Table {
    let title: String
    let columns: [String]
    var rows: [[String]] = []

    init(_ title: String, columns: [String]) {
        self.title = title
        self.columns = columns
    }

    mutating func add(_ row: String...) { rows.append(row) }

    func print() {
        Swift.print("\n### \(title)\n")
        Swift.print("| " + columns.joined(separator: " | ") + " |")
        Swift.print("|" + columns.map { _ in " --- |" }.joined())
        for row in rows { Swift.print("| " + row.joined(separator: " | ") + " |") }
    }
}

func format(_ milliseconds: Double) -> String {
    milliseconds < 1 ? String(format: "%.3f ms", milliseconds) : String(format: "%.2f ms", milliseconds)
}
