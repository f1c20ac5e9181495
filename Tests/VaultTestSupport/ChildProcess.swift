// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import Testing

/// What a finished child process left behind.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: Data
    public var stderr: Data
    public var signalled: Bool

    public var out: String { String(decoding: stdout, as: UTF8.self) }
    public var err: String { String(decoding: stderr, as: UTF8.self) }

    /// Why this looks like a crash (a signal only a fault sends, or the runtime's crash
    /// report on stderr), or nil. Signals a test sends to stop a child (SIGKILL, SIGTERM,
    /// SIGINT) are not crashes.
    public var crash: String? {
        // SIGTRAP, SIGILL, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGSYS: what a failed Swift
        // precondition, a bad access or a runtime trap ends a process with.
        let faults: [Int32: String] = [4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 11: "SIGSEGV", 31: "SIGSYS"]
        if signalled, let name = faults[status] { return "died of \(name)" }
        // `setsid --wait` reports a child that a signal ended with this line and exits with
        // the raw wait status (the signal number, + 128 with a core dump): exit 4 would
        // pass for vault's "backend unavailable".
        let text = err
        // Scripts/test --sanitize: a sanitizer that reported exits 66 (its report is in a file).
        if Sanitizer.name != nil, !signalled, status == Sanitizer.reportStatus { return "a sanitizer report (exit \(status))" }
        if text.contains("did not exit normally"), let name = faults[status & 0x7F] { return "died of \(name) (\(status))" }
        for marker in ChildProcess.crashReportMarkers where text.contains(marker) {
            return "printed a crash report (\"\(marker)\")"
        }
        return nil
    }
}

/// A program run by a test as a real child process.
///
/// - Every child runs through `/usr/bin/setsid --wait`: in a new session, with no
///   controlling terminal, so it can never read the test runner's terminal, and
///   `kill()` can reach everything it started.
/// - Its output pipes are drained on dedicated `Thread`s, never on GCD's global queue:
///   on Linux that queue is the Swift concurrency pool, whose (few) threads the
///   in-process servers of other tests need. So a child never blocks on a full pipe and
///   never starves a server.
/// - `finish(timeout:)` and `finishAsync(timeout:)` are bounded: past the timeout (widened
///   in a sanitized run, `Sanitizer.scaled`) the
///   whole process tree is killed and an issue is recorded. Tests that run a server in
///   this process must use `finishAsync`, which does not hold a thread of the pool.
/// - It starts clean (``SpawnedProcess``): an empty signal mask, every signal at its default
///   action, no descriptor but its standard three, whichever thread starts it.
public final class ChildProcess: @unchecked Sendable {
    /// Where a child's stdout or stderr goes.
    public enum Output: Sendable {
        /// Into a pipe, drained and kept (`ProcessResult`, `output`).
        case captured
        /// To `/dev/null` (long-lived daemons must not hold the runner's pipes).
        case discarded
        /// stderr only: into stdout's pipe, interleaved as on a terminal.
        case intoStdout
    }

    /// What the Swift runtime, its backtracer and LLVM print when a process crashes.
    public static let crashReportMarkers = [
        "Fatal error:", "Precondition failed", "Assertion failed", "Stack dump:", "Program crashed", "Current stack trace:",
        "Crash", "crashed:",
    ]

    /// The executables of this project: a child running one of them that crashes fails the
    /// test (an Issue is recorded), whatever the test expected of it, so a crash can never
    /// pass as an ordinary failure (a SIGILL through `setsid --wait` is exit 4). Other
    /// programs (etcd, KeePassXC, curl) are not checked: their crashes are not ours.
    public static let checkedExecutables: Set<String> = ["vault", "vault-auth", "git-credential-vault", "vault-auth-server"]

    /// The program's path, as given.
    public let executable: String

    /// What a crash of one of ``checkedExecutables`` does when the child is collected: by
    /// default it records an Issue (the test fails); the crash detection's own tests set
    /// it to collect the report instead, and assert on it.
    public var crashReported: @Sendable (String) -> Void = { Issue.record(Comment(rawValue: $0)) }

    /// The `setsid --wait` wrapper (the program itself, or its parent).
    public let process: SpawnedProcess
    /// The write end of the child's standard input.
    private let input: FileHandle
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()
    private let drained = DispatchGroup()

    /// Starts `executable ARGS` (through `setsid --wait`). `environment` nil inherits this
    /// process's. `stdin` is written and then closed, unless `keepingStdinOpen` (then use
    /// `write(_:)` and `closeInput()`).
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, stdin: Data? = nil,
        keepingStdinOpen: Bool = false, stdout: Output = .captured, stderr: Output = .captured
    ) throws {
        self.executable = executable
        let environment = AgentBeside.environment(for: executable, arguments, environment)
        let stdinPipe = try SpawnedProcess.pipe()
        let outPipe = stdout == .captured ? try SpawnedProcess.pipe() : nil
        let errPipe = stderr == .captured ? try SpawnedProcess.pipe() : nil
        var errTarget = SpawnedProcess.Target.null
        if let errPipe {
            errTarget = .descriptor(errPipe.write)
        } else if stderr == .intoStdout, let outPipe {
            errTarget = .descriptor(outPipe.write)
        }
        let started: SpawnedProcess
        do {
            started = try SpawnedProcess(
                "/usr/bin/setsid", ["--wait", executable] + arguments, environment: environment,
                stdio: [.descriptor(stdinPipe.read), outPipe.map { .descriptor($0.write) } ?? .null, errTarget])
        } catch {
            for descriptor in [stdinPipe.read, stdinPipe.write, outPipe?.read, outPipe?.write, errPipe?.read, errPipe?.write] {
                if let descriptor { Foundation.close(descriptor) }
            }
            throw error
        }
        process = started
        // The child's ends are the child's now.
        for descriptor in [stdinPipe.read, outPipe?.write, errPipe?.write] { if let descriptor { Foundation.close(descriptor) } }
        input = FileHandle(fileDescriptor: stdinPipe.write, closeOnDealloc: true)
        if let outPipe { drain(FileHandle(fileDescriptor: outPipe.read, closeOnDealloc: true)) { $0.out.append($1) } }
        if let errPipe { drain(FileHandle(fileDescriptor: errPipe.read, closeOnDealloc: true)) { $0.err.append($1) } }
        // A child that stops reading early (input over a limit) closes the pipe: that is
        // an outcome to test, not a reason to crash the test process.
        if let stdin { try? input.write(contentsOf: stdin) }
        if !keepingStdinOpen { closeInput() }
    }

    /// Starts a child; `finish` or `finishAsync` waits for it.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, stdin: Data? = nil
    ) throws -> ChildProcess {
        try ChildProcess(executable, arguments, environment: environment, stdin: stdin)
    }

    /// Runs a child to completion (at most `timeout` seconds), blocking this thread.
    @discardableResult
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, stdin: Data? = nil,
        timeout: Double = 60
    ) throws -> ProcessResult {
        try start(executable, arguments, environment: environment, stdin: stdin).finish(timeout: timeout)
    }

    /// Runs a child to completion (at most `timeout` seconds) without blocking a thread.
    @discardableResult
    public static func runAsync(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, stdin: Data? = nil,
        timeout: Double = 60
    ) async throws -> ProcessResult {
        try await start(executable, arguments, environment: environment, stdin: stdin).finishAsync(timeout: timeout)
    }

    /// Reads `handle` to its end on a thread of its own.
    private func drain(_ handle: FileHandle, into append: @escaping @Sendable (ChildProcess, Data) -> Void) {
        drained.enter()
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.withLock { append(self, chunk) }
            }
            drained.leave()
        }
    }

    public var isRunning: Bool { process.isRunning }

    /// What the child has written to stdout so far (with stderr, for `.intoStdout`).
    public var output: String { lock.withLock { String(decoding: out, as: UTF8.self) } }

    /// Writes to the child's stdin (when started `keepingStdinOpen`).
    public func write(_ text: String) {
        try? input.write(contentsOf: Data(text.utf8))
    }

    public func closeInput() { try? input.close() }

    /// Sends SIGKILL to the program itself and to every process under it. (`setsid --wait`
    /// forks when it leads a process group, so the program may be its child, in a session
    /// and group of its own: signalling the wrapper's pid or group would miss it.)
    public func kill() {
        let pid = process.processIdentifier
        for victim in Self.descendants(of: pid).reversed() { Foundation.kill(victim, SIGKILL) }
        Foundation.kill(pid, SIGKILL)
    }

    /// Sends SIGTERM to the program: the wrapper's child when `setsid` forked, else the
    /// wrapper, which then is the program. The wrapper exits with it.
    public func terminate() {
        Foundation.kill(Self.descendants(of: process.processIdentifier).first ?? process.processIdentifier, SIGTERM)
    }

    /// Every process below `pid`, parents before children, read from /proc.
    public static func descendants(of pid: Int32) -> [Int32] {
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

    /// Waits (at most `timeout` seconds) until the output so far satisfies `condition`;
    /// returns that output, or nil when the deadline passed or the child ended first.
    public func waitForOutput(timeout: Double, until condition: (String) -> Bool) async throws -> String? {
        let deadline = Date().addingTimeInterval(Sanitizer.scaled(timeout))
        while true {
            switch outputWait(before: deadline, condition) {
            case .waiting: try await Task.sleep(for: .milliseconds(20))
            case .done(let text): return text
            }
        }
    }

    /// `waitForOutput` blocking this thread (for synchronous suites).
    public func waitForOutputBlocking(timeout: Double, until condition: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(Sanitizer.scaled(timeout))
        while true {
            switch outputWait(before: deadline, condition) {
            case .waiting: usleep(20_000)
            case .done(let text): return text
            }
        }
    }

    private enum OutputWait { case waiting, done(String?) }

    private func outputWait(before deadline: Date, _ condition: (String) -> Bool) -> OutputWait {
        let running = isRunning  // read before the output, so a last write is not missed
        let text = output
        if condition(text) { return .done(text) }
        return running && Date() < deadline ? .waiting : .done(nil)
    }

    /// Waits (at most `timeout` seconds, blocking this thread) for the child to end;
    /// returns false if it still runs. Kills nothing.
    public func waitForExit(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(Sanitizer.scaled(timeout))
        while isRunning && Date() < deadline { usleep(10_000) }
        return !isRunning
    }

    /// Waits for the end without blocking a thread (killing it after `timeout` seconds).
    public func finishAsync(timeout: Double = 60) async throws -> ProcessResult {
        let deadline = Date().addingTimeInterval(Sanitizer.scaled(timeout))
        while stillRunning(before: deadline, timeout: timeout) { try await Task.sleep(for: .milliseconds(5)) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            drained.notify(queue: .global()) { continuation.resume() }
        }
        return collected()
    }

    /// Waits for the end (killing the process after `timeout` seconds).
    public func finish(timeout: Double = 60) throws -> ProcessResult {
        let deadline = Date().addingTimeInterval(Sanitizer.scaled(timeout))
        while stillRunning(before: deadline, timeout: timeout) { usleep(2000) }
        drained.wait()
        return collected()
    }

    /// True while the process runs and the deadline has not passed; kills it (and
    /// records an issue) when the deadline passes.
    private func stillRunning(before deadline: Date, timeout: Double) -> Bool {
        guard process.isRunning else { return false }
        guard Date() <= deadline else {
            kill()
            Issue.record("process timed out after \(Sanitizer.scaled(timeout)) s: \(process.arguments ?? [])")
            return false
        }
        return true
    }

    private func collected() -> ProcessResult {
        process.waitUntilExit()
        let result = lock.withLock {
            ProcessResult(
                status: process.terminationStatus, stdout: out, stderr: err,
                signalled: process.terminationReason == .uncaughtSignal)
        }
        if Self.checkedExecutables.contains(URL(fileURLWithPath: executable).lastPathComponent), let crash = result.crash {
            let name = URL(fileURLWithPath: executable).lastPathComponent
            let arguments = (process.arguments ?? []).dropFirst(2).joined(separator: " ")
            let message = "\(name) crashed: \(crash); status \(result.status); arguments \(arguments); stderr:\n\(String(result.err.suffix(4000)))"
            crashReported(message)
        }
        return result
    }
}
