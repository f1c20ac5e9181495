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

    /// Runs a program to completion with `environment` and stdin from /dev/null; returns
    /// the wall time in milliseconds and the exit status.
    static func runProcess(_ path: String, _ arguments: [String], environment: [String: String]) -> (Double, Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let start = ContinuousClock.now
        do { try process.run() } catch { return (.nan, -1) }
        process.waitUntilExit()
        return (milliseconds(ContinuousClock.now - start), process.terminationStatus)
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
