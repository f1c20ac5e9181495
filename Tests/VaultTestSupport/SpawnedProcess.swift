// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started clean, the way a shell starts one, whatever thread of the test
/// process starts it: an empty signal mask, every signal at its default action, and no
/// descriptor but the three it is given; in a process group of its own.
///
/// Foundation's `Process` hands down the calling thread's signal mask and the signals the
/// test process ignores: a child started from a thread of the Swift concurrency pool
/// (libdispatch blocks most signals in its workers) had SIGTERM blocked, so the
/// `dbus-daemon` of a `Scripts/with-keyring` started by a test outlived its
/// `dbus-run-session`, which stops it with SIGTERM. The members used here are the ones of
/// `Process` the tests use.
public final class SpawnedProcess: @unchecked Sendable {
    /// Where one of the child's standard descriptors comes from.
    public enum Target: Sendable {
        /// This process's descriptor (duplicated onto the child's).
        case descriptor(Int32)
        /// `/dev/null`.
        case null
    }

    public let processIdentifier: Int32
    /// The arguments, without the program.
    public let arguments: [String]?
    private let condition = NSCondition()
    private var waitStatus: Int32?

    /// Starts `executable ARGUMENTS` (a path: no `PATH` search). `environment` nil
    /// inherits this process's; `stdio` are the child's descriptors 0, 1 and 2. In a
    /// sanitized run a given environment also gets `Sanitizer.childEnvironment`, unless it
    /// sets those variables itself.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]?, stdio: [Target]) throws {
        let environment = environment.map { Sanitizer.childEnvironment.merging($0) { _, given in given } }
        precondition(stdio.count == 3)
        self.arguments = arguments
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        // Every signal at its default action, the two glibc keeps for itself too (32 and 33,
        // which sigaddset refuses: its posix_spawn would otherwise leave them ignored in the
        // child, and exec keeps them so).
        var all = sigset_t()
        sigemptyset(&all)
        all.__val.0 = .max
        posix_spawnattr_setsigdefault(&attributes, &all)
        // A process group of its own, as Foundation's Process gives: `setsid --wait` then
        // forks, and the program is its child (ChildProcess and the tests count on that).
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (number, target) in stdio.enumerated() {
            switch target {
            case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, Int32(number))
            case .null: posix_spawn_file_actions_addopen(&actions, Int32(number), "/dev/null", number == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        Self.closeAbove2(&actions)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status: Int32
        if let environment {
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { envp.forEach { free($0) } }
            status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        } else {
            status = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        }
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EINVAL) }
        let child = pid
        processIdentifier = child
        // Reaped on a thread of its own (never the concurrency pool's).
        Thread.detachNewThread { [self] in
            var raw: Int32 = 0
            while waitpid(child, &raw, 0) == -1 && errno == EINTR {}
            condition.withLock {
                waitStatus = raw
                condition.broadcast()
            }
        }
    }

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34), looked up at run time
    /// since the Swift Glibc module does not declare it.
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: CloseFrom? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()

    /// Closes every descriptor above the standard three in the child: at once where glibc
    /// can, else each one open now (one opened meanwhile without close-on-exec would leak).
    private static func closeAbove2(_ actions: inout posix_spawn_file_actions_t) {
        if let closeFrom, closeFrom(&actions, 3) == 0 { return }
        for case let descriptor? in ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).map({ Int32($0) })
        where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }

    /// A pipe whose two ends are close-on-exec here (a child gets them through `stdio`;
    /// every child this starts closes all but its three anyway).
    public static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    public var isRunning: Bool { condition.withLock { waitStatus == nil } }

    public func waitUntilExit() {
        condition.withLock {
            while waitStatus == nil { condition.wait() }
        }
    }

    /// The exit status, or the number of the signal that ended it (as `Process`).
    public var terminationStatus: Int32 {
        let raw = condition.withLock { waitStatus } ?? 0
        return raw & 0x7F == 0 ? (raw >> 8) & 0xFF : raw & 0x7F
    }

    public var terminationReason: Process.TerminationReason {
        let raw = condition.withLock { waitStatus } ?? 0
        return raw & 0x7F == 0 ? .exit : .uncaughtSignal
    }
}
