import Foundation
import Testing

/// What a finished child process left behind.
struct ProcessResult: Sendable {
    var status: Int32
    var stdout: Data
    var stderr: Data
    var signalled: Bool

    var out: String { String(decoding: stdout, as: UTF8.self) }
    var err: String { String(decoding: stderr, as: UTF8.self) }
}

/// Runs the built `vault` (or any program) as a real child process, in a new session
/// (no controlling terminal), with a bounded run time.
enum VaultProcess {
    /// The `vault` binary beside this test bundle (override: `VAULT_BIN`).
    static let vaultPath: String = {
        if let path = ProcessInfo.processInfo.environment["VAULT_BIN"] { return path }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("vault").path
    }()

    /// Starts a process; call `finish` on the result to wait for it.
    static func start(
        _ executable: String, _ arguments: [String], environment: [String: String], stdin: Data? = nil
    ) throws -> RunningProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--wait", executable] + arguments
        process.environment = environment
        let input = Pipe()
        let output = Pipe()
        let error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let running = RunningProcess(process: process, stdout: output, stderr: error)
        // A child that stops reading early (input over a limit) closes the pipe: that is
        // an outcome to test, not a reason to crash the test process.
        if let stdin { try? input.fileHandleForWriting.write(contentsOf: stdin) }
        try? input.fileHandleForWriting.close()
        return running
    }

    /// Runs `vault ARGS` to completion (at most `timeout` seconds).
    @discardableResult
    static func vault(
        _ arguments: [String], environment: [String: String], stdin: Data? = nil, timeout: Double = 60
    ) throws -> ProcessResult {
        try start(vaultPath, arguments, environment: environment, stdin: stdin).finish(timeout: timeout)
    }

    /// Runs `vault ARGS` to completion without blocking the concurrency pool (tests that
    /// run a server in-process must use this: its handlers need the pool's threads).
    @discardableResult
    static func vaultAsync(
        _ arguments: [String], environment: [String: String], stdin: Data? = nil, timeout: Double = 60
    ) async throws -> ProcessResult {
        try await start(vaultPath, arguments, environment: environment, stdin: stdin).finishAsync(timeout: timeout)
    }

    /// The smallest environment a vault child needs: no D-Bus, no terminal, a HOME.
    static func baseEnvironment(home: String) -> [String: String] {
        var environment: [String: String] = [
            "HOME": home, "PATH": "/usr/bin:/bin", "VAULT_TEST_KDF_LOG2N": "10", "LANG": "C.UTF-8",
        ]
        for name in ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"] {
            if let value = ProcessInfo.processInfo.environment[name] { environment[name] = value }
        }
        return environment
    }
}

/// A child process whose output is drained on threads of their own (not GCD's global
/// queue, which on Linux is the Swift concurrency pool that an in-process server needs)
/// so it never blocks on a full pipe.
final class RunningProcess: @unchecked Sendable {
    let process: Process
    private let group = DispatchGroup()
    private var out = Data()
    private var err = Data()

    init(process: Process, stdout: Pipe, stderr: Pipe) {
        self.process = process
        let outHandle = stdout.fileHandleForReading
        let errHandle = stderr.fileHandleForReading
        group.enter()
        group.enter()
        Thread.detachNewThread { self.out = outHandle.readDataToEndOfFile(); self.group.leave() }
        Thread.detachNewThread { self.err = errHandle.readDataToEndOfFile(); self.group.leave() }
    }

    /// Sends SIGKILL to the program itself and to every process under it. (`setsid --wait`
    /// forks when it leads a process group, so the program may be its child, in a session
    /// and group of its own: signalling the wrapper's pid or group would miss it.)
    func kill() {
        let pid = process.processIdentifier
        for victim in Self.descendants(of: pid).reversed() { Foundation.kill(victim, SIGKILL) }
        Foundation.kill(pid, SIGKILL)
    }

    /// Every process below `pid`, parents before children, read from /proc.
    static func descendants(of pid: Int32) -> [Int32] {
        var parents: [Int32: [Int32]] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let child = Int32(name), let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = Int32(fields[1]) { parents[parent, default: []].append(child) }
        }
        var result: [Int32] = []
        var queue = [pid]
        while let next = queue.popLast() {
            for child in parents[next] ?? [] where !result.contains(child) {
                result.append(child)
                queue.append(child)
            }
        }
        return result
    }

    /// Waits for the end without blocking a thread (killing it after `timeout` seconds).
    func finishAsync(timeout: Double = 60) async throws -> ProcessResult {
        let deadline = Date().addingTimeInterval(timeout)
        while stillRunning(before: deadline, timeout: timeout) { try await Task.sleep(for: .milliseconds(5)) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            group.notify(queue: .global()) { continuation.resume() }
        }
        return collected()
    }

    /// Waits for the end (killing the process after `timeout` seconds).
    func finish(timeout: Double = 60) throws -> ProcessResult {
        let deadline = Date().addingTimeInterval(timeout)
        while stillRunning(before: deadline, timeout: timeout) { usleep(2000) }
        group.wait()
        return collected()
    }

    /// True while the process runs and the deadline has not passed; kills it (and
    /// records an issue) when the deadline passes.
    private func stillRunning(before deadline: Date, timeout: Double) -> Bool {
        guard process.isRunning else { return false }
        guard Date() <= deadline else {
            kill()
            Issue.record("process timed out after \(timeout) s: \(process.arguments ?? [])")
            return false
        }
        return true
    }

    private func collected() -> ProcessResult {
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus, stdout: out, stderr: err,
            signalled: process.terminationReason == .uncaughtSignal)
    }
}
